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

  /// The value of the first header `key` (case-insensitive), or nil when absent or empty.
  public func header(_ key: String) -> String? {
    let wanted = key.lowercased()
    return headers.first { $0.key.lowercased() == wanted }?.value
  }

  /// Every example from the intents' `!example:` lines, in file order.
  public var examples: [String] { intents.flatMap(\.examples) }
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

/// One intent: the utterance patterns on its first line and what it answers.
public struct SkillIntent: Sendable {
  /// How the intent answers.
  public enum Answer: Sendable {
    /// Plain answer alternatives, `|`-separated in the file; one is picked at random.
    case text([String])
    /// A `!console:` rule: an answer template over data rows, plus extra actions.
    case console(ConsoleRule)
  }

  public var patterns: [SkillPattern]
  public var answer: Answer
  /// 0-based line of the pattern line.
  public var line: Int
  /// 0-based line of the answer line (or of the `!console:` line), as the real server reports.
  public var answerLine: Int
  public var examples: [String]
  public var plans: [PlannedAnswer]
  /// Declared after `::prior`: wins over ordinary intents that also match.
  public var isPrior: Bool
}

/// A `!console:` rule. Offline, rows come from its inline `data`; a rule that only names a
/// remote `url` cannot answer here and never matches.
public struct ConsoleRule: Sendable {
  /// The answer template after `!console:`; empty means "no answer line, actions only".
  public var template: String
  public var rows: [JSON]?
  public var actions: [JSONObject]
  public var url: String?
}

/// A `!plan <delay>:<text>` line: an extra answer delivered after a delay.
public struct PlannedAnswer: Sendable {
  /// The delay as written (`10s`, `1500ms`, `2m`, `$1$s`); resolved after substitution.
  public var delay: String
  public var template: String
}
