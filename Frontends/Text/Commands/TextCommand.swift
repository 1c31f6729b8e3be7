public import SusiCommandLine
import SusiCore

/// What a person asked for, from a slash command in the chat or a one-shot subcommand: both
/// read their words through `TextCommand.make`, so `/rate X 5` and `susi rate X 5` mean the same.
public struct TextCommand: Equatable, Sendable {
  /// The command's name in `TextCommands.all` (an alias typed is read as this name).
  public var name: String
  /// The words after the name as one text: a NAME, TEXT, GROUP, URL or EMAIL, or `set`'s
  /// VALUE; nil when none were given.
  public var text: String?
  /// `set`'s KEY.
  public var key: String?
  /// `rate`'s STARS.
  public var stars: Int?

  public init(_ name: String, _ text: String? = nil, key: String? = nil, stars: Int? = nil) {
    self.name = name
    self.text = text
    self.key = key
    self.stars = stars
  }

  /// Reads the command `name` (or an alias, ignoring case) with its argument words.
  public static func make(_ name: String, _ words: [String]) throws(UsageError) -> TextCommand {
    guard let row = TextCommands.named(name.lowercased()) else {
      throw UsageError(
        "unknown command '/\(name)'",
        suggestion: Spelling.closest(to: name, in: TextCommands.chat.map(\.name)).map { "/" + $0 })
    }
    return try row.arguments.read(row.name, typed: name, words)
  }
}

/// The words a command takes, and how they are read.
enum ArgumentShape: Sendable {
  /// No words.
  case none
  /// All words as one text; `needs` says what is missing when there are none (nil = optional).
  case text(needs: String?)
  /// At most one word (exactly one when `required`); `tooMany` says what it takes.
  case word(required: Bool, tooMany: String)
  /// `NAME STARS`: a skill's name, then 1 to 5.
  case rating
  /// `KEY VALUE…`.
  case setting

  func read(_ name: String, typed: String, _ words: [String]) throws(UsageError) -> TextCommand {
    let rest = words.joined(separator: " ").trimmed
    switch self {
    case .none:
      guard words.isEmpty else { throw UsageError("\(typed) takes no arguments") }
      return TextCommand(name)
    case .text(let needs):
      if let needs, rest.isEmpty { throw UsageError("\(typed) needs \(needs)") }
      return TextCommand(name, rest.isEmpty ? nil : rest)
    case .word(let required, let tooMany):
      guard words.count <= 1 && (!required || words.count == 1) else {
        throw UsageError("\(typed) \(tooMany)")
      }
      return TextCommand(name, words.first)
    case .rating:
      guard let last = words.last, words.count >= 2 else {
        throw UsageError("rate needs a skill NAME and STARS (1 to 5), e.g. rate \"Flip a coin\" 5")
      }
      guard let stars = Int(last) else {
        throw UsageError("STARS must be a number from 1 to 5, not '\(last)'")
      }
      guard (1...5).contains(stars) else { throw UsageError("STARS must be 1 to 5, not \(stars)") }
      let skill = words.dropLast().joined(separator: " ").trimmed
      guard !skill.isEmpty else { throw UsageError("rate needs a skill NAME before the stars") }
      return TextCommand(name, skill, stars: stars)
    case .setting:
      guard words.count >= 2 else {
        throw UsageError("set needs a KEY and a VALUE, e.g. set theme dark")
      }
      return TextCommand(name, words.dropFirst().joined(separator: " "), key: words[0])
    }
  }
}

/// One command of the text frontend: its names, its words, its help, the one-shot subcommand
/// it is offered as, and what runs it. `/help`, Tab completion, the slash commands, the
/// subcommands and `--json` all read `TextCommands.all`.
struct TextCommandRow: Sendable {
  /// What Tab completes after the command.
  enum Completion: Sendable { case skills, groups }

  /// The name typed after `/` or `susi`.
  let name: String
  /// Other names that mean the same.
  var aliases: [String] = []
  /// The words it takes, as `/help` shows them (`NAME STARS`).
  var usage = ""
  var arguments = ArgumentShape.none
  /// Its line in `/help`; nil for a command the chat does not list.
  var help: String?
  var completes: Completion?
  /// The subcommand `susi NAME`, when there is one.
  var shell: Shell?
  /// The result types that carry its data, for `--json`.
  var data: Set<ActionType> = []
  /// Whether it reaches the web search, and pages or images at addresses a server gave
  /// (otherwise `--websearch-url` and `--allow-private-targets` are refused).
  var searchesWeb = false
  var fetchesPages = false
  /// Runs it in a session; it throws an `Outcome` when it does not end `ok`.
  let run: @Sendable (TextSession, TextCommand) async throws -> Void

  /// How it is typed in the chat.
  var chatUsage: String { "/" + name + (usage.isEmpty ? "" : " " + usage) }

  /// What the subcommand adds to the row for `susi help NAME`; the summary is the `/help` line
  /// and the usage the chat's unless they are given.
  struct Shell: Sendable {
    var summary: String?
    var usage: String?
    var discussion = ""
    var examples: [String] = []
    var options: [OptionSpec] = []
    var arguments: ClosedRange<Int> = 0...0
  }

  /// The subcommand's help, when there is one.
  var spec: CommandSpec? {
    shell.map { shell in
      CommandSpec(
        name: name, summary: shell.summary ?? help ?? "",
        usage: shell.usage ?? String(chatUsage.dropFirst()), discussion: shell.discussion,
        examples: shell.examples, options: shell.options, arguments: shell.arguments)
    }
  }
}

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
