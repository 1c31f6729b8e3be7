import Foundation
public import SusiCommandLine
public import SusiTerminal

/// Where the text frontend writes, and how: answers and results on the output stream, errors,
/// prompts for secrets and progress on the error stream.
public struct TextConsole: Sendable {
  /// Writes text to standard output exactly as given.
  public var writeOutput: @Sendable (String) -> Void
  /// Writes text to standard error exactly as given.
  public var writeError: @Sendable (String) -> Void
  /// Renders for standard output (its width, glyphs and colours).
  public var renderer: TextRenderer
  /// Colours for standard error.
  public var errorStyle: TerminalStyle
  /// Whether standard input is a terminal: prompts are shown and secrets read without echo.
  public var interactive: Bool
  /// Whether to draw progress on standard error (only when it is a terminal).
  public var showsProgress: Bool
  /// How to show images inline on standard output; nil prints their cached files' paths only.
  public var images: TerminalImage?
  /// Writes an inline image's escape sequence (built by `images`) to standard output unchanged:
  /// `writeOutput` lets no such sequence through.
  public var writeImage: @Sendable (String) -> Void = { StandardStream.output.writeUnfiltered($0) }

  /// Whether notes (what susi tells beside the answer: a welcome, start-up warnings, planned
  /// answers resumed) are printed; `--quiet` turns them off.
  public var notes = true

  /// Prints a note on standard error, unless `--quiet`.
  public func note(_ text: String) {
    guard notes, !text.isEmpty else { return }
    writeError(text + "\n")
  }

  /// The console of this process: colour and width per stream, glyphs from the locale, times
  /// in the local zone unless `utc`; `quiet` prints nothing on standard output (`--json`
  /// prints there instead).
  public static func standard(
    environment: [String: String], utc: Bool = false, quiet: Bool = false,
    color: ColorMode = .auto, notes: Bool = true
  ) -> TextConsole {
    let renderer = TextRenderer(
      width: outputWidth(isTerminal: StandardStream.output.isTerminal, environment: environment) {
        TerminalStyle.columns(for: .output, environment: environment)
      },
      glyphs: Glyphs.detect(environment: environment),
      style: TerminalStyle.detect(for: .output, environment: environment, mode: color),
      timeZone: DateText.zone(utc: utc, environment: environment))
    var writeOutput: @Sendable (String) -> Void = { StandardStream.output.write($0) }
    if quiet { writeOutput = { _ in } }
    return TextConsole(
      writeOutput: writeOutput,
      writeError: { StandardStream.error.write($0) },
      renderer: renderer,
      errorStyle: TerminalStyle.detect(for: .error, environment: environment, mode: color),
      interactive: StandardInput.isTerminal,
      showsProgress: notes && StandardStream.error.isTerminal && environment["TERM"] != "dumb",
      images: quiet
        ? nil
        : TerminalImage.detect(
          isTerminal: StandardStream.output.isTerminal, environment: environment),
      notes: notes)
  }

  /// How wide output lines may be: the terminal's width; in a pipe `COLUMNS` when set, else
  /// unlimited (a program reading the output gets whole lines).
  static func outputWidth(
    isTerminal: Bool, environment: [String: String], terminalColumns: () -> Int
  ) -> Int {
    if isTerminal { return terminalColumns() }
    if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
    return TextRenderer.unlimitedWidth
  }

  /// Prints `text` and a newline on standard output (nothing for empty text).
  public func print(_ text: String) {
    guard !text.isEmpty else { return }
    writeOutput(text + "\n")
  }

  /// Prints an error a person can act on, on standard error.
  public func error(_ text: String) {
    writeError(errorStyle.red("susi: ") + text + "\n")
  }
}
