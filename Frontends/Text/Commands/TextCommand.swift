public import SusiCommandLine
import SusiCore

/// What a person asked for, from a slash command in the chat or a one-shot subcommand: both
/// read their words through `TextCommand.make`, so `/rate X 5` and `susi rate X 5` mean the same.
public enum TextCommand: Equatable, Sendable {
  case ask(String)
  case groups
  case skills(group: String?)
  case skill(name: String)
  case rate(name: String, stars: Int)
  case myRating(name: String)
  case settings
  case set(key: String, value: String)
  case sync
  case login(email: String?)
  case logout
  case signup(email: String?)
  case server(url: String?)
  case search(String)
  case preview(url: String)
  case history
  case replay
  case help
  case quit

  /// Slash-command names, as `/help` lists them.
  public static let slashNames = [
    "groups", "skills", "skill", "rate", "myrating", "settings", "set", "sync", "login", "logout",
    "signup", "server", "search", "preview", "history", "replay", "help", "quit",
  ]

  /// Reads the command `name` with its argument words.
  public static func make(_ name: String, _ words: [String]) throws(UsageError) -> TextCommand {
    let rest = words.joined(separator: " ").trimmed
    func none() throws(UsageError) {
      guard words.isEmpty else { throw UsageError("\(name) takes no arguments") }
    }
    func required(_ what: String) throws(UsageError) -> String {
      guard !rest.isEmpty else { throw UsageError("\(name) needs \(what)") }
      return rest
    }
    switch name.lowercased() {
    case "ask": return .ask(try required("a question"))
    case "groups":
      try none()
      return .groups
    case "skills": return .skills(group: rest.isEmpty ? nil : rest)
    case "skill": return .skill(name: try required("a skill NAME"))
    case "rate":
      guard words.count >= 2 else {
        throw UsageError("rate needs a skill NAME and STARS (1 to 5), e.g. rate \"Flip a coin\" 5")
      }
      guard let stars = Int(words[words.count - 1]) else {
        throw UsageError("STARS must be a number from 1 to 5, not '\(words[words.count - 1])'")
      }
      guard (1...5).contains(stars) else { throw UsageError("STARS must be 1 to 5, not \(stars)") }
      let skill = words.dropLast().joined(separator: " ").trimmed
      guard !skill.isEmpty else { throw UsageError("rate needs a skill NAME before the stars") }
      return .rate(name: skill, stars: stars)
    case "myrating": return .myRating(name: try required("a skill NAME"))
    case "settings":
      try none()
      return .settings
    case "set":
      guard words.count >= 2 else {
        throw UsageError("set needs a KEY and a VALUE, e.g. set theme dark")
      }
      return .set(key: words[0], value: words.dropFirst().joined(separator: " "))
    case "sync":
      try none()
      return .sync
    case "login", "signup":
      guard words.count <= 1 else {
        throw UsageError("\(name) takes one EMAIL (the password is asked for)")
      }
      return name.lowercased() == "login" ? .login(email: words.first) : .signup(email: words.first)
    case "logout":
      try none()
      return .logout
    case "server":
      guard words.count <= 1 else { throw UsageError("server takes one URL") }
      return .server(url: words.first)
    case "search": return .search(try required("some TEXT to search for"))
    case "preview":
      guard words.count == 1 else { throw UsageError("preview needs one URL") }
      return .preview(url: words[0])
    case "history":
      try none()
      return .history
    case "replay":
      try none()
      return .replay
    case "help", "?": return .help
    case "quit", "exit", "q": return .quit
    default:
      throw UsageError(
        "unknown command '/\(name)'",
        suggestion: Spelling.closest(to: name, in: slashNames).map { "/" + $0 })
    }
  }
}
