import SusiCommandLine
import SusiCore

/// One line typed at the chat prompt.
public enum ChatLine: Equatable, Sendable {
  /// Nothing to do (an empty line).
  case empty
  /// A question for SUSI.
  case query(String)
  case command(TextCommand)
  /// A slash command that could not be read; the message says why.
  case invalid(String)

  /// Reads a line: `/word args…` is a command (quotes group words), `//text` asks `/text`,
  /// anything else is a question.
  public static func parse(_ line: String) -> ChatLine {
    let text = line.trimmed
    if text.isEmpty { return .empty }
    guard text.hasPrefix("/") else { return .query(text) }
    if text.hasPrefix("//") { return .query(String(text.dropFirst())) }
    do throws(UsageError) {
      let words = try CommandWords.split(String(text.dropFirst()))
      guard let name = words.first else {
        return .invalid("a command name must follow '/'; /help lists them")
      }
      return .command(try TextCommand.make(name, Array(words.dropFirst())))
    } catch {
      return .invalid(error.description)
    }
  }
}
