import SusiJSON
import Synchronization

/// The intents of a set of skills, found by key and ranked as the real server's `SusiMind`
/// and `SusiIntent.Score` do.
///
/// An intent is tried only when a query token equals one of its keys (words of its
/// utterances), or always when an utterance has no word to find it by. Matching intents are
/// tried best first: by language (the skill's language against the user's), then utterances
/// without wildcards before others, then by the length of the matching utterance's expression
/// (longer first), dialog type, action type and inference type; ties go to the smaller skill (the real server's order among ties is
/// arbitrary), then to the skill and intent read first. (The real server ranks by the
/// length of the intent's shortest utterance, whichever matched, so one short alternative such
/// as `what` puts every utterance of its intent behind a catch-most AIML pattern, and it counts
/// a wildcard as the four characters of `(.*)`, so `hello *` beats `hello hal`.)
struct SkillMind: Sendable {
  struct Entry: Sendable {
    var skill: Int32
    var intent: Int32
    /// The skill's language, an index into `languages`.
    var language: UInt16
    /// How many intents the skill has: of two equal matches the smaller skill's wins.
    var skillSize: Int32
    /// The rank below the language and the utterance length: `SusiIntent.Score` without them.
    var rank: Int64
  }

  let entries: [Entry]
  /// Each entry's utterances (shared with the skill files, not copied).
  private let patterns: Utterances
  private let byKey: [String: [Int32]]
  private let always: [Int32]
  private let languages: [String]

  /// The intents of `skills` (indices into `all`).
  init(skills: [Int], of all: [Skill]) {
    var entries: [Entry] = []
    var texts: [[String]] = []
    var compiled: [[SkillPattern]?] = []
    var keySets: [Keys] = []
    var frequency: [String: Int] = [:]
    var languageIDs: [String: UInt16] = [:]
    var languages: [String] = []
    for skillIndex in skills {
      let language = all[skillIndex].language
      let languageID =
        languageIDs[language]
        ?? {
          languages.append(language)
          languageIDs[language] = UInt16(languages.count - 1)
          return UInt16(languages.count - 1)
        }()
      let intents = all[skillIndex].outline.intents
      for (intentIndex, intent) in intents.enumerated() {
        entries.append(
          Entry(
            skill: Int32(skillIndex), intent: Int32(intentIndex), language: languageID,
            skillSize: Int32(intents.count), rank: intent.rank))
        texts.append(intent.texts)
        compiled.append(intent.compiled)
        let keys = intent.keys
        keySets.append(keys)
        if case .shared(let shared) = keys { for key in shared { frequency[key, default: 0] += 1 } }
      }
    }
    var byKey: [String: [Int32]] = [:]
    var always: [Int32] = []
    for (index, keys) in keySets.enumerated() {
      let entry = Int32(index)
      switch keys {
      case .none: always.append(entry)
      case .shared(let shared):
        // Every matching query has all of them; the rarest finds the fewest candidates.
        let rarest = shared.min { frequency[$0, default: 0] < frequency[$1, default: 0] }
        if let rarest { byKey[rarest, default: []].append(entry) }
      case .any(let keys):
        for key in keys { byKey[key, default: []].append(entry) }
      }
    }
    self.entries = entries
    self.patterns = Utterances(texts: texts, compiled: compiled)
    self.byKey = byKey
    self.always = always
    self.languages = languages
  }

  /// The utterances of every entry, compiled when a query first finds the entry.
  final class Utterances: Sendable {
    private let texts: [[String]]
    private let compiled: Mutex<[[SkillPattern]?]>

    init(texts: [[String]], compiled: [[SkillPattern]?]) {
      self.texts = texts
      self.compiled = Mutex(compiled)
    }

    subscript(index: Int) -> [SkillPattern] {
      compiled.withLock { compiled in
        if let patterns = compiled[index] { return patterns }
        let patterns = texts[index].map(SkillPattern.init)
        compiled[index] = patterns
        return patterns
      }
    }
  }

  enum Keys: Sendable {
    /// An utterance has no word: the intent is always tried.
    case none
    /// Words every utterance has: any one of them finds the intent.
    case shared([String])
    /// The utterances share no word: each of their words finds the intent.
    case any([String])
  }

  /// The keys of an intent (`computeKeysFromUtterance`): none when an utterance has no word,
  /// else the words every utterance has, or, when they share none, all their words.
  static func keys(_ patterns: [SkillPattern]) -> Keys {
    guard !patterns.isEmpty, !patterns.contains(where: { $0.keys.isEmpty }) else { return .none }
    let shared = patterns.dropFirst().reduce(patterns[0].keys) { shared, pattern in
      shared.filter(pattern.keys.contains)
    }
    if !shared.isEmpty { return .shared(shared) }
    var all: [String] = []
    for key in patterns.flatMap(\.keys) where !all.contains(key) { all.append(key) }
    return .any(all)
  }

  /// Pattern length, dialog, action and inference parts of `SusiIntent.Score`, with the
  /// language part left out (it is added per query).
  static func rank(_ intent: SkillIntent) -> Int64 {
    var dialog = Int.max
    var render = 0
    for action in intent.actions {
      switch action {
      case .answer(let phrases, _):
        dialog = min(dialog, phrases.map(dialogType).min() ?? 2)
        render = max(render, ActionKind.answer.score)
      case .other(let object):
        dialog = 0
        let kind = object["type"]?.string.flatMap(ActionKind.init(rawValue:))
        render = max(render, kind?.score ?? 0)
      }
    }
    if dialog == Int.max { dialog = 2 }
    var inference = 0
    if case .console = intent.rule { inference = max(inference, 1) }
    if intent.hasFlow || !intent.plans.isEmpty { inference = max(inference, 2) }
    if !intent.conditions.isEmpty { inference = max(inference, 3) }
    if case .javascript = intent.rule { inference = max(inference, 4) }
    var score = Int64(dialog)
    score = score * 256 + Int64(render)
    score = score * 6 + Int64(inference)
    return score * 1001 + 10
  }

  /// How much one character of utterance length weighs against the rest of the rank.
  static let sizeWeight: Int64 = 3 * 256 * 6 * 1001
  /// How much one language level weighs: more than any utterance.
  static let languageWeight: Int64 = 2000 * sizeWeight

  /// `SusiAction.getDialogType`: a question mark after the first few characters makes a
  /// question (1), or a reply (2) when the phrase also has a sentence end; else an answer (0).
  static func dialogType(_ phrase: String) -> Int {
    let utf16 = Array(phrase.utf16)
    guard let mark = utf16.firstIndex(of: 0x3F), mark > 3 else { return 0 }
    return phrase.contains(". ") ? 2 : 1
  }

  /// `SusiLanguage.likelihoodCanSpeak` × 100: how likely a user of `user` understands a skill
  /// in `skill`.
  static func languageScore(skill: String, user: String) -> Int64 {
    let known = skill.count == 2 && skill.allSatisfy { $0.isASCII && $0.isLowercase }
    if !known || skill == user { return 100 }
    if ["de", "fi", "sv"].contains(skill) && user == "en" { return 90 }
    if ["fi", "sv"].contains(skill) && ["fi", "sv"].contains(user) { return 90 }
    if user == "en" { return 50 }
    return 0
  }

  /// A matching intent: the captures of each matching utterance, longest utterance first.
  struct Match {
    var entry: Entry
    var captures: [[String]]
  }

  /// The intents a query's tokens find that match it, best first.
  func matches(_ query: SkillPattern.Query, language: String) -> [Match] {
    var found = Set<Int32>(always)
    for token in query.tokens {
      if let list = byKey[token] { found.formUnion(list) }
    }
    let languageScores = languages.map { SkillMind.languageScore(skill: $0, user: language) }
    var scored: [(score: Int64, index: Int32, match: Match)] = []
    for index in found {
      var matched: [(size: Int, captures: [String])] = []
      let utterances = patterns[Int(index)]
      for position in utterances.indices {
        if let captures = utterances[position].match(query) {
          // An utterance equal to the query beats every wildcard one.
          let exact = if case .exact = utterances[position].matcher { 1000 } else { 0 }
          let size = min(utterances[position].size, 999)
          matched.append((exact + size, captures))
        }
      }
      guard let size = matched.map(\.size).max() else { continue }
      let entry = entries[Int(index)]
      matched.sort { $0.size > $1.size }
      let score =
        languageScores[Int(entry.language)] * SkillMind.languageWeight + Int64(size)
        * SkillMind.sizeWeight + entry.rank
      scored.append((score, index, Match(entry: entry, captures: matched.map(\.captures))))
    }
    scored.sort {
      if $0.score != $1.score { return $0.score > $1.score }
      if $0.match.entry.skillSize != $1.match.entry.skillSize {
        return $0.match.entry.skillSize < $1.match.entry.skillSize
      }
      return $0.index < $1.index
    }
    return scored.map(\.match)
  }
}
