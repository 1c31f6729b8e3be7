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
  }

  /// The skills of this mind, indices into the library's skills, in entry order.
  let skills: [Int]
  let entries: [Entry]
  /// Each entry's utterances and rank, compiled when a query first finds the entry.
  private let patterns: Utterances
  let keys: KeyTable
  private let languages: [String]

  /// The intents of `skills` (indices into `all`), found by the keys of their outlines.
  init(skills: [Int], of all: [Skill]) {
    var frequency: [String: Int] = [:]
    var keySets: [Keys] = []
    for skillIndex in skills {
      let outline = all[skillIndex].outline
      for intentIndex in 0..<outline.count {
        let keys = outline.intent(intentIndex).keys ?? .none
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
    self.init(skills: skills, of: all, keys: .memory(byKey, always: always))
  }

  /// The intents of `skills` (indices into `all`), found by `keys`.
  init(skills: [Int], of all: [Skill], keys: KeyTable) {
    var entries: [Entry] = []
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
      let count = all[skillIndex].outline.count
      for intentIndex in 0..<count {
        entries.append(
          Entry(
            skill: Int32(skillIndex), intent: Int32(intentIndex), language: languageID,
            skillSize: Int32(count)))
      }
    }
    self.skills = skills
    self.entries = entries
    self.patterns = Utterances(
      outlines: skills.map { all[$0].outline }, entries: entries.map(\.intent),
      firstEntry: SkillMind.firstEntries(skills.map { all[$0].outline.count }))
    self.keys = keys
    self.languages = languages
  }

  private static func firstEntries(_ counts: [Int]) -> [Int32] {
    var first: [Int32] = []
    var total: Int32 = 0
    for count in counts {
      first.append(total)
      total += Int32(count)
    }
    return first
  }

  /// Where a mind's candidates come from: a table built in memory from the intents' keys, or
  /// the one saved in the skill index, looked up there without being read at start.
  enum KeyTable: Sendable {
    case memory([String: [Int32]], always: [Int32])
    case index(SkillIndex.KeyLines, always: [Int32])

    /// The entries a query's tokens find, and those always tried.
    func candidates(_ tokens: Set<String>) -> Set<Int32> {
      switch self {
      case .memory(let byKey, let always):
        var found = Set<Int32>(always)
        for token in tokens {
          if let list = byKey[token] { found.formUnion(list) }
        }
        return found
      case .index(let lines, let always):
        var found = Set<Int32>(always)
        for token in tokens { lines.entries(for: token, into: &found) }
        return found
      }
    }
  }

  /// The utterances and rank of every entry, compiled when a query first finds the entry.
  final class Utterances: Sendable {
    private let outlines: [SkillOutline]
    /// Each entry's intent number within its skill.
    private let intents: [Int32]
    /// The first entry of each outline.
    private let firstEntry: [Int32]
    private let compiled: Mutex<[Int32: (patterns: [SkillPattern], rank: Int64)]>

    init(outlines: [SkillOutline], entries: [Int32], firstEntry: [Int32]) {
      self.outlines = outlines
      self.intents = entries
      self.firstEntry = firstEntry
      self.compiled = Mutex([:])
    }

    subscript(index: Int) -> (patterns: [SkillPattern], rank: Int64) {
      compiled.withLock { compiled in
        if let found = compiled[Int32(index)] { return found }
        // The outline holding the entry: the last whose first entry is not after it.
        var low = 0
        var high = firstEntry.count - 1
        while low < high {
          let middle = (low + high + 1) / 2
          if firstEntry[middle] <= Int32(index) { low = middle } else { high = middle - 1 }
        }
        let intent = outlines[low].intent(Int(intents[index]))
        let made = (intent.compiled ?? intent.texts.map(SkillPattern.init), intent.rank)
        compiled[Int32(index)] = made
        return made
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

  /// How matching intents are ordered: this server's order, or the real server's, and which
  /// skill goes first or last among intents that rank equal (to measure ties).
  struct Ranking: Sendable {
    /// Rank as the real server does: by the length of the intent's shortest utterance,
    /// whichever matched, with a wildcard utterance no lower than a plain one.
    var realServer = false
    /// Among equal ranks, this skill's intents first.
    var preferred: Int32?
    /// Among equal ranks, this skill's intents last.
    var avoided: Int32?
  }

  /// The intents a query's tokens find that match it, best first.
  func matches(_ query: SkillPattern.Query, language: String, ranking: Ranking = Ranking())
    -> [Match]
  {
    let found = keys.candidates(query.tokens)
    let languageScores = languages.map { SkillMind.languageScore(skill: $0, user: language) }
    var scored: [(score: Int64, index: Int32, match: Match)] = []
    for index in found {
      var matched: [(size: Int, captures: [String])] = []
      let (utterances, rank) = patterns[Int(index)]
      for position in utterances.indices {
        if let captures = utterances[position].match(query) {
          // An utterance equal to the query beats every wildcard one.
          let exact = if case .exact = utterances[position].matcher { 1000 } else { 0 }
          let size = min(utterances[position].size, 999)
          matched.append((exact + size, captures))
        }
      }
      guard var size = matched.map(\.size).max() else { continue }
      let entry = entries[Int(index)]
      matched.sort { $0.size > $1.size }
      if ranking.realServer { size = min(utterances.map(\.size).min() ?? 0, 999) }
      let score =
        languageScores[Int(entry.language)] * SkillMind.languageWeight + Int64(size)
        * SkillMind.sizeWeight + rank
      scored.append((score, index, Match(entry: entry, captures: matched.map(\.captures))))
    }
    func tieOrder(_ skill: Int32) -> Int {
      skill == ranking.preferred ? 0 : skill == ranking.avoided ? 2 : 1
    }
    scored.sort {
      if $0.score != $1.score { return $0.score > $1.score }
      let (left, right) = (tieOrder($0.match.entry.skill), tieOrder($1.match.entry.skill))
      if left != right { return left < right }
      if $0.match.entry.skillSize != $1.match.entry.skillSize {
        return $0.match.entry.skillSize < $1.match.entry.skillSize
      }
      return $0.index < $1.index
    }
    return scored.map(\.match)
  }
}
