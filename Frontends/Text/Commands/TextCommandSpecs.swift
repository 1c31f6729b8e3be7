public import SusiCommandLine
import SusiCore

/// Help for the text frontend's subcommands: what `susi --help`, `susi help CMD` and
/// `susi CMD --help` print.
public enum TextCommandSpecs {
  static let passwordFile = OptionSpec(
    "--password-file", value: "FILE",
    help:
      "read the password from the first line of FILE (otherwise it is asked for without echo, or read from stdin)"
  )

  static let wait = OptionSpec(
    "--wait",
    help:
      "wait for answers planned for later (reminders), with a countdown on a terminal; without it they stay pending for the next start"
  )
  static let json = OptionSpec(
    "--json",
    help:
      "print the data (the answer, the list, the settings) as one JSON value; --json=events: "
      + "every event the command logged, in one object (shapes in README)"
  ).accepting(["events"])
  static let utc = OptionSpec("--utc", help: "show times in UTC (TZ=UTC does too)")

  /// `spec` as susi offers it: with the options every text command shares (`--utc`; `--json`
  /// for one-shot commands; `--wait` where answers are asked for), and refusing the common
  /// options it has no use for.
  static func complete(_ spec: CommandSpec) -> CommandSpec {
    var spec = spec
    if spec.name == "chat" || spec.name == "ask" { spec.options.append(wait) }
    if spec.name != "chat" { spec.options.append(json) }
    spec.options.append(utc)
    // Only answers and searches reach the web search; only they, previews and skill pages
    // fetch pages or images from addresses the server gave.
    if !["chat", "ask", "search"].contains(spec.name) {
      spec.unusedCommonOptions.append("--websearch-url")
    }
    if !["chat", "ask", "search", "preview", "skill"].contains(spec.name) {
      spec.unusedCommonOptions.append("--allow-private-targets")
    }
    return spec
  }

  public static let chat = CommandSpec(
    name: "chat",
    summary: "chat with SUSI; /commands browse skills, rate, change settings (the default)",
    usage: "chat [--password-file FILE]",
    discussion: """
      Plain text is a question for SUSI; lines starting with / are commands (/help lists them).
      With no --server, the built-in server answers, so this works offline. Restarting with the
      same --log resumes the session. Ctrl-C cancels a request; pressed twice it quits.
      When stdin is not a terminal, each line is handled in turn and susi exits at the end of
      the input (exit code 1 when any line failed). Answers planned for later (reminders) are
      shown as they arrive; when the chat ends they stay pending for the next start, unless
      --wait waits for them.
      """,
    examples: [
      "susi", "echo 'flip a coin' | susi chat", "printf '/groups\\n/skills Knowledge\\n' | susi",
    ],
    options: [passwordFile])

  public static let ask = CommandSpec(
    name: "ask", summary: "ask SUSI one question and print the answer", usage: "ask TEXT...",
    discussion: """
      Answers SUSI plans for later (reminders) are not waited for: susi says when each is due
      and exits; the next susi run after that time shows it. --wait waits for them instead.
      """,
    examples: [
      "susi ask what is the capital of france", "susi ask \"flip a coin\"",
      "susi ask --wait \"remind me in 2 minutes to stretch\"",
    ],
    arguments: 1...1000)

  public static let groups = CommandSpec(
    name: "groups", summary: "list the skill groups", usage: "groups", examples: ["susi groups"])

  public static let skills = CommandSpec(
    name: "skills", summary: "list the skills of a group, or every skill", usage: "skills [GROUP]",
    discussion:
      "The group name is matched ignoring case. Without a group, every skill is loaded in one request.",
    examples: [
      "susi skills", "susi skills Knowledge", "susi skills \"Games, Trivia and Accessories\"",
    ],
    arguments: 0...100)

  public static let skill = CommandSpec(
    name: "skill", summary: "show a skill: description, examples, ratings", usage: "skill NAME",
    discussion: """
      NAME is the skill's name or tag, ignoring case; GROUP/NAME picks one of several skills with
      the same name. Unknown names are looked up once more after loading every skill.
      """,
    examples: ["susi skill \"Flip a coin\"", "susi skill Knowledge/Capitals"], arguments: 1...100)

  public static let rate = CommandSpec(
    name: "rate", summary: "rate a skill from 1 to 5 stars (needs a login)",
    usage: "rate NAME STARS",
    examples: ["susi rate \"Flip a coin\" 5"], arguments: 2...100)

  public static let myRating = CommandSpec(
    name: "myrating", summary: "show your own rating of a skill (needs a login)",
    usage: "myrating NAME",
    examples: ["susi myrating \"Flip a coin\""], arguments: 1...100)

  public static let settings = CommandSpec(
    name: "settings", summary: "show, change or fetch your settings",
    usage: "settings [set KEY VALUE | sync]",
    discussion: """
      'settings' shows the settings last confirmed by the server, 'settings set KEY VALUE'
      changes one (needs a login), 'settings sync' fetches yours from the server. The server
      keeps every value as text; true/false also read yes/no, on/off and 1/0. The keys:

      """ + settingKeys,
    examples: ["susi settings", "susi settings set theme dark", "susi settings sync"],
    arguments: 0...100)

  /// One line per setting the server accepts, with what it takes, for `help settings`.
  static let settingKeys = SettingKey.allowed.map { "  \($0.key): \(SettingKey.accepts($0.key))" }
    .joined(separator: "\n")

  public static let login = CommandSpec(
    name: "login", summary: "log in to the SUSI server",
    usage: "login [EMAIL] [--password-file FILE]",
    discussion: """
      The password is asked for without echo on a terminal, read from the first line of stdin
      otherwise, or from --password-file. It is never taken from the command line or the
      environment, and never written to the event log.
      """,
    examples: [
      "susi login me@example.org", "susi login me@example.org --password-file ~/.susi-password",
    ],
    options: [passwordFile], arguments: 0...1)

  public static let logout = CommandSpec(
    name: "logout", summary: "log out", usage: "logout", examples: ["susi logout"])

  public static let signup = CommandSpec(
    name: "signup", summary: "create an account on the SUSI server",
    usage: "signup [EMAIL] [--password-file FILE]",
    discussion:
      "The password is read the same way as for login; on a terminal it is asked for twice.",
    examples: ["susi signup me@example.org"], options: [passwordFile], arguments: 0...1)

  public static let search = CommandSpec(
    name: "search", summary: "search the web", usage: "search TEXT...",
    examples: ["susi search swift programming language"], arguments: 1...1000)

  public static let preview = CommandSpec(
    name: "preview", summary: "show what a web page says about itself", usage: "preview URL",
    examples: ["susi preview https://www.swift.org"], arguments: 1...1)

  public static let history = CommandSpec(
    name: "history", summary: "show what the server remembers of your chats", usage: "history",
    examples: ["susi history"])

  /// Reads a one-shot command's arguments.
  static func command(_ spec: CommandSpec, _ words: [String]) throws(UsageError) -> TextCommand {
    switch spec.name {
    case "settings":
      guard let first = words.first else { return .settings }
      switch first {
      case "set": return try TextCommand.make("set", Array(words.dropFirst()))
      case "sync":
        guard words.count == 1 else { throw UsageError("'susi settings sync' takes nothing more") }
        return .sync
      default:
        throw UsageError(
          "'\(first)' is not a settings action; use 'set KEY VALUE' or 'sync'",
          suggestion: Spelling.closest(to: first, in: ["set", "sync"]))
      }
    default:
      return try TextCommand.make(spec.name, words)
    }
  }
}
