/// The characters the renderers draw with: Unicode when the locale is UTF-8, plain ASCII
/// otherwise (a terminal in the C locale shows `★` as garbage).
public struct Glyphs: Sendable, Equatable {
  public var unicode: Bool

  public init(unicode: Bool) { self.unicode = unicode }

  public static let utf8 = Glyphs(unicode: true)
  public static let ascii = Glyphs(unicode: false)

  /// Unicode when the locale (`LC_ALL`, else `LC_CTYPE`, else `LANG`) names UTF-8.
  public static func detect(environment: [String: String]) -> Glyphs {
    let locale =
      ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
    let normalized = locale.lowercased().filter { $0 != "-" }
    return Glyphs(unicode: normalized.contains("utf8"))
  }

  public var fullStar: String { unicode ? "★" : "*" }
  public var emptyStar: String { unicode ? "☆" : "-" }
  public var ellipsis: String { unicode ? "…" : "..." }
  /// The line under table headers.
  public var rule: Character { unicode ? "─" : "-" }
  public var bullet: String { unicode ? "•" : "-" }
  public var middleDot: String { unicode ? "·" : "-" }
  /// A bar cell that is completely filled.
  public var fullBlock: String { unicode ? "█" : "#" }
  /// The empty part of a percentage bar.
  public var emptyBlock: String { unicode ? "░" : "." }
  /// Frames of the progress spinner.
  public var spinner: [String] {
    unicode ? ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"] : ["|", "/", "-", "\\"]
  }

  /// A horizontal bar `fraction` (0…1) of `width` cells long, drawn with eighth blocks in
  /// Unicode so small differences still show.
  public func bar(_ fraction: Double, width: Int) -> String {
    guard width > 0, fraction.isFinite, fraction > 0 else { return "" }
    let clamped = min(fraction, 1)
    guard unicode else {
      return String(repeating: "#", count: Int((clamped * Double(width)).rounded()))
    }
    let eighths = Int((clamped * Double(width) * 8).rounded())
    let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
    return String(repeating: "█", count: eighths / 8) + partials[eighths % 8]
  }
}
