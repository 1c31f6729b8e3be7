public import SusiJSON

/// One skill file in the SUSI skill format, parsed: its `::` headers and its intents.
public struct SkillFile: Sendable {
  /// A `::key value` header. `value` is nil when nothing follows the key.
  public struct Header: Sendable, Equatable {
    public var key: String
    public var value: String?
  }

  public var headers: [Header]
  public var intents: [SkillIntent]
  /// Problems the parser stepped around (an intent it dropped, a line it ignored).
  public var warnings: [SkillWarning]
  /// Every `!example:` line of the file with its 0-based line, also those of intents that were
  /// dropped: what the skill claims to answer.
  public var exampleLines: [(line: Int, text: String)]
  /// The `::on` names: a focus skill answers only when a chat names it with `focus=`.
  public var focus: [String]

  /// The value of the first header `key` (case-insensitive), or nil when absent or empty.
  public func header(_ key: String) -> String? {
    let wanted = key.lowercased()
    return headers.first { $0.key.lowercased() == wanted }?.value
  }

  /// Every example of the file, in file order (the metadata's `examples`).
  public var examples: [String] { exampleLines.map(\.text) }
}

/// A problem in a skill file that the parser stepped around, with its 1-based line number.
public struct SkillWarning: Sendable, Equatable, CustomStringConvertible {
  public var line: Int
  public var message: String
  public var description: String { "line \(line): \(message)" }
}

/// Why a whole skill file could not be read.
public struct SkillParseError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

/// One intent: the utterance patterns on the first line of its block and what it does.
///
/// An `?if:then:else` line makes two intents of one block: one with the condition, one with
/// it negated.
public struct SkillIntent: Sendable {
  /// One action the intent answers with, in the order of the file.
  public enum Action: Sendable {
    /// An answer line: alternatives separated by `|`, one picked at random.
    case answer([String], line: Int)
    /// Another action (`table`, `rss`, `map` …) from a `!console:` rule's `actions`.
    case other(JSONObject)
  }

  /// A program the intent runs before it answers.
  public enum Rule: Sendable {
    case console(ConsoleRule)
    /// A `!javascript:` rule: its script; the answer reads the result as `$!$`.
    case javascript(String, line: Int)
  }

  public var patterns: [SkillPattern]
  public var actions: [Action]
  public var rule: Rule?
  /// From `?cond:then:else` lines: memory conditions (`$_name$`, `$_x$=value`) that must hold,
  /// or, when `negated`, must not.
  public var conditions: [Condition]
  public var plans: [PlannedAnswer]
  /// The block's `!first`/`!rest` lines, in order. They come before the intent's rule (a rule
  /// ends its block), so, as on the real server, they apply to the thought the match made:
  /// one row holding the query (`$0$`) and the captures (`$1$`…). `!first` keeps its first
  /// row (a match has only one); `!rest` drops it, so the answers and plans see no captures,
  /// and an intent without an answer or action then fails (its thought is empty).
  public var flow: [FlowStep]
  /// Whether the block has `!first`/`!rest` lines (they also rank the intent).
  public var hasFlow: Bool { !flow.isEmpty }
  /// Whether a `!rest` line dropped the match's row.
  public var dropsMatch: Bool { flow.contains(.rest) }

  /// A `!first` or `!rest` line.
  public enum FlowStep: Sendable, Equatable {
    case first
    case rest
  }
  /// 0-based line of the utterance line.
  public var line: Int
  public var examples: [String]
  /// Declared after `::prior` (kept for the record: the real server's ranking ignores it).
  public var isPrior: Bool

  /// 0-based line of the first answer line (or rule), as the real server reports in `line`.
  public var answerLine: Int {
    for action in actions { if case .answer(_, let line) = action { return line } }
    if case .javascript(_, let line) = rule { return line }
    if case .console(let rule) = rule { return rule.line }
    return line
  }
}

/// A condition of a `?cond:then:else` line.
public struct Condition: Sendable {
  public var expression: String
  public var negated: Bool
}

/// A `!console:` rule: its JSON definition. Offline, rows come from its inline `data`; a rule
/// with a `url` asks the server's `SkillProcedures`, and falls through when they cannot answer.
public struct ConsoleRule: Sendable {
  /// The whole JSON object between the `!console:` line and `eol`.
  public var definition: JSONObject
  /// 0-based line of the `!console:` line.
  public var line: Int

  /// The inline `data` rows, when the definition has a `data` array.
  public var rows: [JSON]? { definition["data"]?.array }
  /// The `url` to fetch, if any.
  public var url: String? { definition["url"]?.string }
}

/// A `!plan <delay>:<text>` line: an extra answer delivered after a delay.
public struct PlannedAnswer: Sendable {
  /// The delay as written (`10s`, `1500ms`, `2m`, `$1$s`); resolved after substitution.
  public var delay: String
  public var template: String
}
