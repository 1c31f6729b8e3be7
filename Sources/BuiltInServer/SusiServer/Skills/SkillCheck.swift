public import Foundation
import Glibc
import SusiCrypto
import SusiJSON

/// What `susi server --check-skills DIR` reports to skill authors: every problem the loader
/// stepped around (file and line), and every `!example:` of one language asked of the server,
/// with the skill that answered it, and, when another answered, why its own did not.
public struct SkillCheck: Sendable {
  /// Why an example's own skill cannot answer it even when asked alone.
  public enum Obstacle: String, Sendable {
    /// No utterance of the skill matches the example.
    case noPattern = "fits none of its skill's utterances"
    /// The matching intent fetches a URL, and this server has no network procedures.
    case network = "needs the network (!console: with a url)"
    /// The matching intent runs JavaScript, and its script gives no answer here.
    case javascript = "its !javascript: rule gives no answer"
    /// The matching intent needs remembered values or a condition a new user does not meet.
    case memory = "needs remembered values or a condition a new user does not meet"
  }

  /// One example asked of the server.
  public struct Outcome: Sendable {
    /// The example's skill, relative to the data directory (`models/general/…/x.txt`).
    public var skill: String
    /// The 1-based line of the `!example:` line.
    public var line: Int
    public var example: String
    /// The answering skill relative to the data directory, or nil when the fallback answered.
    public var answeredBy: String?
    /// The first answer text.
    public var answer: String
    /// Why the skill cannot answer the example even when asked alone; nil when it can.
    public var obstacle: Obstacle?
    /// Another skill answered, and the example's own skill has an intent that matches it and
    /// ranks equal (their utterances are the same): one of the two must answer.
    public var tied = false
    /// Who answers when candidates are ordered as the real server orders them (see
    /// `SkillMind.Ranking.realServer`); nil when the skill cannot answer by itself.
    public var realServer: Verdict?

    /// Whether the example's own skill answered it.
    public var isOwn: Bool { answeredBy == skill }
  }

  /// Whether the example's own skill answers it.
  public enum Verdict: Sendable {
    /// It does, before any other.
    case own
    /// It ranks equal with another skill's intent; the order among equals decides.
    case tie
    /// Another skill's intent ranks higher.
    case other
  }

  /// Problems met while loading, one line each, naming file and line.
  public var warnings: [String]
  public var outcomes: [Outcome]
  /// How many skill files were loaded.
  public var skillCount: Int
  /// CPU seconds it took to load the folder.
  public var loadSeconds: Double = 0
  /// Seconds each example took to answer, in order.
  public var answerSeconds: [Double] = []

  /// How many examples their own skill answered.
  public var ownCount: Int { outcomes.count { $0.isOwn } }

  /// Loads `dataDirectory` as the server does and asks every example of `language` as a new
  /// user with no memory, from a client at UTC (`timezoneOffset=0`, as every SUSI client sends
  /// one); examples of a focus skill with `focus=` its name, of a persona skill
  /// with `persona=` its name, as those skills are meant to be used.
  public static func run(
    dataDirectory: URL, language: String = "en",
    procedures: any SkillProcedures = OfflineScriptProcedures()
  ) -> SkillCheck {
    let start = threadSeconds()
    let library = SkillLibrary.load(from: dataDirectory)
    let loaded = threadSeconds() - start
    var check = run(library: library, language: language, procedures: procedures)
    check.loadSeconds = loaded
    return check
  }

  static func run(
    library: SkillLibrary, language: String,
    procedures: any SkillProcedures = OfflineScriptProcedures()
  ) -> SkillCheck {
    let engine = AnswerEngine(library: library, procedures: procedures)
    var random = SeededRandom(seed: 1)
    var outcomes: [Outcome] = []
    var answerSeconds: [Double] = []
    let observations: [(String, JSON)] = [
      ("timezoneOffset", .string("0")), ("language", .string(language)),
    ]
    for (index, skill) in library.skills.enumerated()
    where skill.language == language
      && (skill.model == SkillLibrary.chatModel || skill.model == "persona")
    {
      let own = skill.relativePath
      var alone: AnswerEngine.Context {
        var context = AnswerEngine.Context(
          language: language, observations: observations, serverURL: "http://localhost",
          now: Date(timeIntervalSince1970: 0))
        context.only = SkillMind(skills: [index], of: library.skills)
        return context
      }
      let aloneContext = alone
      let skillID = Int32(index)
      for (line, example) in skill.file.exampleLines {
        let context = AnswerEngine.Context(
          language: language, observations: observations, serverURL: "http://localhost",
          now: Date(timeIntervalSince1970: 0), focus: skill.file.focus.first,
          persona: skill.model == "persona" ? skill.tag : nil)
        /// Whether the example's own skill answers with candidates ranked so.
        func ownAnswers(_ ranking: SkillMind.Ranking) -> Bool {
          var ranked = context
          ranked.ranking = ranking
          return engine.think(query: example, context: ranked, random: &random).skill?.serverPath
            == skill.serverPath
        }
        let start = threadSeconds()
        let thought = engine.think(query: example, context: context, random: &random)
        answerSeconds.append(threadSeconds() - start)
        let answer =
          thought.actions.first { $0["type"]?.string == "answer" }?["expression"]?.string ?? ""
        let answeredBy = thought.skill?.relativePath
        var obstacle: Obstacle?
        if answeredBy != own {
          let byItself = engine.think(query: example, context: aloneContext, random: &random)
          if byItself.skill == nil { obstacle = Self.obstacle(example, skill) }
        }
        var outcome = Outcome(
          skill: own, line: line + 1, example: example, answeredBy: answeredBy, answer: answer,
          obstacle: obstacle)
        if obstacle == nil {
          outcome.tied = answeredBy != own && ownAnswers(SkillMind.Ranking(preferred: skillID))
          outcome.realServer =
            ownAnswers(SkillMind.Ranking(realServer: true, avoided: skillID))
            ? .own
            : ownAnswers(SkillMind.Ranking(realServer: true, preferred: skillID)) ? .tie : .other
        }
        outcomes.append(outcome)
      }
    }
    return SkillCheck(
      warnings: library.warnings, outcomes: outcomes, skillCount: library.skills.count,
      answerSeconds: answerSeconds)
  }

  /// The CPU time this thread has used: answer times measured so are not inflated by other
  /// processes on a busy machine.
  static func threadSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// Load time and answer times (median, 99th percentile, worst), in CPU time, in one line.
  public var timing: String {
    let sorted = answerSeconds.sorted()
    func at(_ fraction: Double) -> Double {
      sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
    func ms(_ value: Double) -> String { String(format: "%.2f ms", value * 1000) }
    return
      "CPU time: loading \(String(format: "%.3f s", loadSeconds)); answers: median \(ms(at(0.5))), "
      + "p99 \(ms(at(0.99))), worst \(ms(sorted.last ?? 0))"
      + (slowest.map { " ('\($0)')" } ?? "")
  }

  /// The example that took longest to answer.
  public var slowest: String? {
    guard let worst = answerSeconds.indices.max(by: { answerSeconds[$0] < answerSeconds[$1] }),
      worst < outcomes.count
    else { return nil }
    return outcomes[worst].example
  }

  /// Why `skill` alone does not answer `example`.
  static func obstacle(_ example: String, _ skill: Skill) -> Obstacle {
    let query = SkillPattern.Query(example)
    let matching = skill.file.intents.filter { intent in
      intent.patterns.contains { $0.match(query) != nil }
    }
    if matching.isEmpty { return .noPattern }
    if matching.contains(where: { intent in
      if case .console(let rule) = intent.rule, rule.url != nil { return true }
      return false
    }) {
      return .network
    }
    if matching.contains(where: { intent in
      if case .javascript = intent.rule { return true }
      return false
    }) {
      return .javascript
    }
    return .memory
  }

  /// The examples whose own skill can answer them by itself: the ones a collection should get
  /// right.
  public var answerable: [Outcome] { outcomes.filter { $0.obstacle == nil } }

  /// The one-line summary: how many examples their own skill answered, of all and of those it
  /// can answer by itself offline.
  public var summary: String {
    func percent(_ part: Int, _ whole: Int) -> Int { whole == 0 ? 0 : part * 100 / whole }
    let answerable = self.answerable
    let ownAnswerable = answerable.count { $0.isOwn }
    var counts: [Obstacle: Int] = [:]
    for outcome in outcomes {
      if let obstacle = outcome.obstacle { counts[obstacle, default: 0] += 1 }
    }
    let reasons = [Obstacle.network, .javascript, .memory, .noPattern].compactMap { obstacle in
      counts[obstacle].map { "\($0) \(obstacle.rawValue)" }
    }
    return
      "\(skillCount) skill files, \(warnings.count) warnings; \(ownCount) of \(outcomes.count) examples "
      + "answered by their own skill (\(percent(ownCount, outcomes.count))%); of the "
      + "\(answerable.count) their skill answers by itself, \(ownAnswerable) "
      + "(\(percent(ownAnswerable, answerable.count))%)"
      + (ownAnswerable == answerable.count
        ? ""
        : ", and \(answerable.count { $0.tied }) of the other \(answerable.count - ownAnswerable) "
          + "tie with the skill that answered (an equal-ranking intent, one of two answers)")
      + (reasons.isEmpty ? "" : "; not answerable here: " + reasons.joined(separator: ", "))
  }

  /// The examples their skill answers by itself, ranked as the real server ranks: how many
  /// their own skill answers first, how many tie with another skill's intent (the real server
  /// picks one by the order of a hash set), how many another skill answers.
  public var realServerSummary: String {
    let answerable = self.answerable
    func count(_ verdict: Verdict) -> Int { answerable.count { $0.realServer == verdict } }
    return
      "ranked as the real server ranks (by each intent's shortest utterance): of the "
      + "\(answerable.count), \(count(.own)) answered by their own skill, \(count(.tie)) tie "
      + "with another skill, \(count(.other)) answered by another skill"
  }

  /// The whole check for a person: every load warning, the examples their own skill did not
  /// answer (every example with `listingExamples`), then the summaries and the time it took.
  public func report(listingExamples: Bool) -> String {
    var out = ""
    for warning in warnings { out += "warning: \(warning)\n" }
    for outcome in outcomes where listingExamples || !outcome.isOwn {
      let mark =
        outcome.isOwn ? "ok  " : outcome.obstacle != nil ? "SKIP" : outcome.tied ? "TIE " : "MISS"
      out +=
        "\(mark) \(outcome.skill):\(outcome.line): \(outcome.example) -> \(outcome.answeredBy ?? "fallback"): \(outcome.answer)"
      switch outcome.realServer {
      case .tie: out += " (as the real server ranks: a tie)"
      case .other: out += " (as the real server ranks: another skill first)"
      default: break
      }
      out += outcome.obstacle.map { " (\($0.rawValue))\n" } ?? "\n"
    }
    out += summary + "\n" + realServerSummary + "\n" + timing + "\n"
    return out
  }
}
