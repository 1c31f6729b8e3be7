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
