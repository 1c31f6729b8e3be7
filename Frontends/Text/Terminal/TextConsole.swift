import SusiFrontendSupport

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

  public init(
    writeOutput: @escaping @Sendable (String) -> Void,
    writeError: @escaping @Sendable (String) -> Void,
    renderer: TextRenderer, errorStyle: TerminalStyle, interactive: Bool, showsProgress: Bool
  ) {
    self.writeOutput = writeOutput
    self.writeError = writeError
    self.renderer = renderer
    self.errorStyle = errorStyle
    self.interactive = interactive
    self.showsProgress = showsProgress
  }

  /// The console of this process: colour and width per stream, glyphs from the locale.
  public static func standard(environment: [String: String]) -> TextConsole {
    let renderer = TextRenderer(
      width: StandardStream.output.isTerminal
        ? TerminalStyle.columns(for: .output, environment: environment) : 80,
      glyphs: Glyphs.detect(environment: environment),
      style: TerminalStyle.detect(for: .output, environment: environment))
    return TextConsole(
      writeOutput: { StandardStream.output.write($0) },
      writeError: { StandardStream.error.write($0) },
      renderer: renderer, errorStyle: TerminalStyle.detect(for: .error, environment: environment),
      interactive: StandardInput.isTerminal,
      showsProgress: StandardStream.error.isTerminal && environment["TERM"] != "dumb")
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
