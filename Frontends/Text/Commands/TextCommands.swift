import SusiCommandLine
import SusiCore

/// The text frontend's commands. Each is declared beside what runs it, in `TextSession+<area>`
/// (a new command touches that one file); here is only the order of the areas.
enum TextCommands {
  typealias Shell = TextCommandRow.Shell

  /// Every command, in the order `/help` and `susi --help` list them.
  static let all = asking + skillCommands + accountCommands + lookupCommands + infoCommands

  /// The commands the chat lists in `/help`.
  static let chat = all.filter { $0.help != nil }

  /// The command called `name` (lowercase) or with that alias.
  static func named(_ name: String) -> TextCommandRow? {
    all.first { $0.name == name || $0.aliases.contains(name) }
  }

  /// Reads a one-shot command's arguments: `settings` also takes `set KEY VALUE` and `sync`.
  static func read(_ row: TextCommandRow, _ words: [String]) throws(UsageError) -> TextCommand {
    guard row.name == "settings", let first = words.first else {
      return try row.arguments.read(row.name, typed: row.name, words)
    }
    switch first {
    case "set": return try TextCommand.make("set", Array(words.dropFirst()))
    case "sync":
      guard words.count == 1 else { throw UsageError("'susi settings sync' takes nothing more") }
      return TextCommand("sync")
    default:
      throw UsageError(
        "'\(first)' is not a settings action; use 'set KEY VALUE' or 'sync'",
        suggestion: Spelling.closest(to: first, in: ["set", "sync"]))
    }
  }

  // MARK: Help for the subcommands (`susi --help`, `susi help CMD`, `susi CMD --help`)

  static let passwordFile = OptionSpec(
    .passwordFile, value: "FILE",
    help:
      "read the password from the first line of FILE (otherwise it is asked for without echo, or read from stdin)"
  )

  static let wait = OptionSpec(
    .wait,
    help:
      "wait for answers planned for later (reminders), with a countdown on a terminal; without it they stay pending for the next start"
  )
  static let json = OptionSpec(
    .json,
    help:
      "print the data (the answer, the list, the settings) as one JSON value; --json=events: "
      + "every event the command logged, in one object (shapes in README)"
  ).accepting(["events"])
  static let utc = OptionSpec(.utc, help: "show times in UTC (TZ=UTC does too)")

  /// One line per setting the server accepts, with what it takes, for `help settings`.
  static let settingKeys = SettingKey.allowed.map { "  \($0.key): \(SettingKey.accepts($0.key))" }
    .joined(separator: "\n")

  static let chatSpec = CommandSpec(
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
    options: [passwordFile, wait, utc])

  /// A one-shot command's `spec` as susi offers it: with the options every one shares (`--json`,
  /// `--utc`, `--wait` where answers are asked for), refusing the common options it has no use
  /// for.
  static func complete(_ row: TextCommandRow, _ spec: CommandSpec) -> CommandSpec {
    var spec = spec
    if row.name == "ask" { spec.options.append(wait) }
    spec.options += [json, utc]
    if !row.searchesWeb { spec.unusedCommonOptions.append(.websearchURL) }
    if !row.fetchesPages { spec.unusedCommonOptions.append(.allowPrivateTargets) }
    return spec
  }
}
