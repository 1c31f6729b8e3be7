#if canImport(Glibc)
  import Glibc
#endif

/// Whether and how to decorate text for one output stream: colour only on a terminal, never
/// with `NO_COLOR` set (non-empty) or `TERM=dumb`.
public struct TerminalStyle: Sendable {
  public var colors: Bool

  public init(colors: Bool) { self.colors = colors }

  /// The style for `stream` under `environment`.
  public static func detect(
    for stream: StandardStream, environment: [String: String], mode: ColorMode = .auto
  ) -> TerminalStyle {
    TerminalStyle(
      colors: colorsAllowed(isTerminal: stream.isTerminal, environment: environment, mode: mode))
  }

  /// The colour rule on its own, for tests: `--color=always` and `never` decide; `auto` is a
  /// terminal without NO_COLOR or TERM=dumb.
  public static func colorsAllowed(
    isTerminal: Bool, environment: [String: String], mode: ColorMode = .auto
  ) -> Bool {
    switch mode {
    case .always: return true
    case .never: return false
    case .auto: break
    }
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
    if environment["TERM"] == "dumb" { return false }
    return isTerminal
  }

  public func bold(_ text: String) -> String { sgr("1", text) }
  public func dim(_ text: String) -> String { sgr("2", text) }
  public func red(_ text: String) -> String { sgr("31", text) }
  public func green(_ text: String) -> String { sgr("32", text) }
  public func yellow(_ text: String) -> String { sgr("33", text) }
  public func cyan(_ text: String) -> String { sgr("36", text) }

  private func sgr(_ code: String, _ text: String) -> String {
    colors ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }

  /// The width of the terminal on `stream`, else `$COLUMNS`, else 80.
  public static func columns(for stream: StandardStream, environment: [String: String]) -> Int {
    var size = winsize()
    if ioctl(stream.descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return Int(size.ws_col)
    }
    if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
    return 80
  }
}
