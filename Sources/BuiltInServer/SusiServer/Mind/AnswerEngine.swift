import Foundation
import SusiCrypto
import SusiJSON

/// Finds the skill intent that best matches a query and builds the answer the real server's
/// mind would: data rows, actions (in order, unified, de-duplicated) and the skill's path.
struct AnswerEngine {
  let library: SkillLibrary

  /// The result of thinking about one query.
  struct Thought {
    var data: [JSON]
    var actions: [JSONObject]
    var skillPath: String
    /// nil when the fallback answered.
    var skill: Skill?
  }

  struct Match {
    var skill: Skill
    var intent: SkillIntent
    var captures: [String]
    var score: Int
  }

  /// The best intent among the skills of `language`, then among the English ones. Prior
  /// intents win, then the most specific pattern; ties go to the skill loaded first.
  func bestMatch(query: String, language: String) -> Match? {
    let words = SkillPattern.Words(query)
    for candidateLanguage in language == "en" ? ["en"] : [language, "en"] {
      var best: Match?
      for skill in library.skills where skill.language == candidateLanguage {
        for intent in skill.file.intents {
          if case .console(let rule) = intent.answer, rule.rows == nil { continue }
          for pattern in intent.patterns {
            guard let captures = pattern.match(words) else { continue }
            let score = (intent.isPrior ? 1_000_000 : 0) + pattern.specificity
            if score > (best?.score ?? Int.min) {
              best = Match(skill: skill, intent: intent, captures: captures, score: score)
            }
          }
        }
      }
      if let best { return best }
    }
    return nil
  }

  /// Answers `query`; `observations` are merged into the data rows the way the real server
  /// adds them (into the first row that lacks the key).
  func think(
    query: String, language: String, observations: [(String, JSON)], serverURL: String,
    now: Date, debug: Bool, random: inout SeededRandom
  ) -> Thought {
    guard let match = bestMatch(query: query, language: language) else {
      var data: [JSON] = []
      merge([("0", .string(query))] + observations, into: &data)
      let actions: [JSONObject] = [
        [
          "type": "answer", "language": .string(language),
          "expression": .string(Fallback.text(language: language)), "mood": "sabta",
        ],
        ["type": "websearch", "query": .string(query)],
      ]
      return Thought(
        data: data, actions: shape(actions, debug: debug), skillPath: Fallback.skillPath,
        skill: nil)
    }
    let captures = [query] + match.captures
    var rows: [JSON] = []
    var actions: [JSONObject] = []
    var template = AnswerTemplate(captures: captures, row: [:], serverURL: serverURL)
    func answerAction(_ expression: String) -> JSONObject {
      [
        "type": "answer", "language": .string(match.skill.language),
        "line": .int(match.intent.answerLine), "expression": .string(expression),
      ]
    }
    switch match.intent.answer {
    case .text(let alternatives):
      actions.append(answerAction(template.fill(pick(alternatives, &random))))
    case .console(let rule):
      rows = (rule.rows ?? []).map { template.fill($0) }
      template.row = rows.first?.object ?? [:]
      if !rule.template.isEmpty {
        let alternatives = rule.template.split(separator: "|").map { $0.trimmed }
        actions.append(answerAction(template.fill(pick(alternatives, &random))))
      }
      actions += rule.actions.compactMap { template.fill(.object($0)).object }
    }
    for plan in match.intent.plans {
      guard let delay = Self.milliseconds(template.fill(plan.delay)) else { continue }
      actions.append([
        "type": "answer", "language": .string(match.skill.language),
        "expression": .string(template.fill(plan.template)), "plan_delay": .int(delay),
        "plan_date": .string(SusiDateFormat.millis(now.addingTimeInterval(Double(delay) / 1000))),
      ])
    }
    var observationRows: [(String, JSON)] = []
    for (index, capture) in captures.enumerated() {
      observationRows.append((String(index), .string(capture)))
    }
    merge(observationRows + observations, into: &rows)
    return Thought(
      data: rows, actions: shape(actions, debug: debug), skillPath: match.skill.serverPath,
      skill: match.skill)
  }

  private func shape(_ actions: [JSONObject], debug: Bool) -> [JSONObject] {
    let unified = actions.map(ActionShaping.unify)
    return debug ? unified : ActionShaping.uniqueActions(unified)
  }

  private func pick(_ alternatives: [String], _ random: inout SeededRandom) -> String {
    guard !alternatives.isEmpty else { return "" }
    return alternatives[Int.random(in: 0..<alternatives.count, using: &random)]
  }

  /// Adds each observation to the first row object that lacks its key, or a new row.
  private func merge(_ observations: [(String, JSON)], into rows: inout [JSON]) {
    for (key, value) in observations {
      if let index = rows.firstIndex(where: { $0.object.map { $0[key] == nil } ?? false }),
        var row = rows[index].object
      {
        row[key] = value
        rows[index] = .object(row)
      } else {
        rows.append(.object([key: value]))
      }
    }
  }

  /// A `!plan` delay in milliseconds: `1500ms`, `10s`, `2m`, `1h`, or a bare number of
  /// milliseconds; nil when it is not one of those or is negative or above a day.
  static func milliseconds(_ text: String) -> Int? {
    let text = text.trimmed.lowercased()
    let units: [(String, Int)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
    var number = Substring(text)
    var factor = 1
    for (suffix, unitFactor) in units where text.hasSuffix(suffix) {
      number = text.dropLast(suffix.count)
      factor = unitFactor
      break
    }
    guard let value = Double(number.trimmed), value.isFinite, value >= 0 else { return nil }
    let milliseconds = value * Double(factor)
    guard milliseconds <= 86_400_000 else { return nil }
    return Int(milliseconds.rounded())
  }
}
