public import Foundation
import SusiCrypto
import SusiJSON

/// What `susi server --check-skills DIR` reports to skill authors: every problem the loader
/// stepped around (file and line), and every `!example:` of one language asked of the server,
/// with the skill that answered it.
public struct SkillCheck: Sendable {
  /// One example asked of the server.
  public struct Outcome: Sendable {
    /// The example's skill, relative to the data directory (`models/general/…/x.txt`).
    public var skill: String
    /// The 1-based line of the intent the example belongs to.
    public var line: Int
    public var example: String
    /// The answering skill relative to the data directory, or nil when the fallback answered.
    public var answeredBy: String?
    /// The first answer text.
    public var answer: String

    /// Whether the example's own skill answered it.
    public var isOwn: Bool { answeredBy == skill }
  }

  /// Problems met while loading, one line each, naming file and line.
  public var warnings: [String]
  public var outcomes: [Outcome]
  /// How many skill files were loaded.
  public var skillCount: Int

  /// How many examples their own skill answered.
  public var ownCount: Int { outcomes.count { $0.isOwn } }

  /// Loads `dataDirectory` as the server does and asks every example of `language` (of the
  /// skills that answer chat) as a new user with no memory.
  public static func run(dataDirectory: URL, language: String = "en") -> SkillCheck {
    let library = SkillLibrary.load(from: dataDirectory)
    return run(library: library, language: language)
  }

  static func run(library: SkillLibrary, language: String) -> SkillCheck {
    let engine = AnswerEngine(library: library)
    var random = SeededRandom(seed: 1)
    var outcomes: [Outcome] = []
    let prefix = "/susi_skill_data/"
    for skill in library.skills where skill.language == language {
      let own = String(skill.serverPath.dropFirst(prefix.count))
      for intent in skill.file.intents {
        for example in intent.examples {
          let thought = engine.think(
            query: example, language: language, observations: [], serverURL: "http://localhost",
            now: Date(timeIntervalSince1970: 0), debug: false, random: &random)
          let answer =
            thought.actions.first { $0["type"]?.string == "answer" }?["expression"]?.string ?? ""
          outcomes.append(
            Outcome(
              skill: own, line: intent.line + 1, example: example,
              answeredBy: thought.skill.map { String($0.serverPath.dropFirst(prefix.count)) },
              answer: answer))
        }
      }
    }
    return SkillCheck(
      warnings: library.warnings, outcomes: outcomes, skillCount: library.skills.count)
  }

  /// The one-line summary: `N of M en examples answered by their own skill (P%)`.
  public var summary: String {
    let percent = outcomes.isEmpty ? 0 : ownCount * 100 / outcomes.count
    return
      "\(skillCount) skill files, \(warnings.count) warnings; \(ownCount) of \(outcomes.count) examples answered by their own skill (\(percent)%)"
  }
}
