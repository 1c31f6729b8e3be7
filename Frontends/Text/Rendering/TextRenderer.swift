public import Foundation
public import SusiCommandLine
import SusiCore
public import SusiTerminal

/// Turns susi's values into text for a person: pure functions from values to lines, so every
/// rendering decision is unit-tested without a terminal.
///
/// The output never ends in a newline; callers print it as a line.
public struct TextRenderer: Sendable {
  /// The columns available (the terminal's width, or 80).
  public var width: Int
  public var glyphs: Glyphs
  public var style: TerminalStyle
  /// The zone dates are shown in (UTC unless the frontend picks the local one).
  public var timeZone: TimeZone
  /// The width used when nothing limits the output (a pipe without `COLUMNS`): lines are not cut.
  public static let unlimitedWidth = 100_000

  public init(
    width: Int = 80, glyphs: Glyphs = .utf8, style: TerminalStyle = TerminalStyle(colors: false),
    timeZone: TimeZone = TimeZone(identifier: "UTC")!
  ) {
    self.width = max(width, 20)
    self.glyphs = glyphs
    self.style = style
    self.timeZone = timeZone
  }

  /// `text` cut to fit `columns` (default: the full width) with this renderer's ellipsis.
  func fit(_ text: String, _ columns: Int? = nil) -> String {
    text.truncated(toWidth: columns ?? width, ellipsis: glyphs.ellipsis)
  }

  /// A bar `fraction` of `width` cells long in `colour`, padded with spaces to `width`.
  func paddedBar(_ fraction: Double, width: Int, colour: (String) -> String) -> String {
    let bar = glyphs.bar(fraction, width: width)
    let padding = String(repeating: " ", count: max(0, width - bar.displayWidth))
    return (bar.isEmpty ? "" : colour(bar)) + padding
  }

  /// Lines joined for printing.
  static func join(_ lines: [String]) -> String { lines.joined(separator: "\n") }

  /// The table as aligned columns fitted to this renderer's width (see `TextTable.render`).
  public func table(_ table: TextTable) -> String {
    table.render(width: width, glyphs: glyphs, bold: { style.bold($0) })
  }
}

extension TextRenderer {
  /// When something is due: `at 14:35 (in 29 min 58 s)`.
  func dueText(_ due: Timestamp, now: Timestamp) -> String {
    "at \(DateText.clock(due, now: now, zone: timeZone)) (\(DateText.relative(due, now: now)))"
  }

  /// A date to the minute in this renderer's time zone.
  func dateText(_ moment: Timestamp, seconds: Bool = false) -> String {
    DateText.minutes(moment, zone: timeZone, seconds: seconds)
  }
}
