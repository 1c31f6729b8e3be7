import Foundation
import SusiCrypto
import SusiJSON

/// Finds the intent that answers a query and builds the answer the real server's mind would:
/// candidates found by key and tried best first; an intent whose condition fails, whose
/// variables are bound to nothing, whose rule cannot run or whose reflection finds no answer is
/// passed over for the next. The answer has data rows, actions (in order, unified,
/// de-duplicated), the values it assigned, and the skill's path.
struct AnswerEngine {
  let library: SkillLibrary
  var procedures: any SkillProcedures = OfflineSkillProcedures()

  /// How deep reflections (`` `query` `` inside an answer) may nest.
  static let reflectionDepth = 4
  /// How many reflections one query may ask in all.
  static let reflectionBudget = 16

  /// The result of thinking about one query.
  struct Thought {
    var data: [JSON]
    var actions: [JSONObject]
    var skillPath: String
    /// nil when the fallback answered.
    var skill: Skill?
  }

  /// What the chat knows besides the query.
  struct Context {
    var language: String
    /// Observations (`timezoneOffset`, `language`, `client_host` …), in reply order.
    let observations: [(String, JSON)]
    /// The last rows every intent's bindings search: the server's URL and the observations,
    /// then the values remembered from the user's earlier answers (for each name, the newest
    /// answer's). Made when the first intent is considered, once per query.
    var standingRows: [JSONObject] { standing.rows }
    private let standing: StandingRows
    var now: Date
    var debug: Bool
    /// `focus=NAME`: the focus skills of that name answer first.
    var focus: String?
    /// `persona=NAME`: that persona skill answers first.
    var persona: String?
    /// When set, only these intents are asked (to check a skill by itself).
    var only: SkillMind?
    /// How candidates are ordered (changed only to measure the skills).
    var ranking = SkillMind.Ranking()

    /// `remembered`: the values of the user's earlier answers (for each name, the newest's).
    init(
      language: String, observations: [(String, JSON)] = [], remembered: [String: JSON] = [:],
      serverURL: String, now: Date, debug: Bool = false, focus: String? = nil,
      persona: String? = nil
    ) {
      self.language = language
      self.observations = observations
      self.standing = StandingRows(
        serverURL: serverURL, observations: observations, remembered: remembered)
      self.now = now
      self.debug = debug
      self.focus = focus
      self.persona = persona
    }
  }

  /// `Context.standingRows`, made at first use: a query no intent matches never needs them.
  final class StandingRows {
    private let serverURL: String
    private let observations: [(String, JSON)]
    private let remembered: [String: JSON]

    init(serverURL: String, observations: [(String, JSON)], remembered: [String: JSON]) {
      self.serverURL = serverURL
      self.observations = observations
      self.remembered = remembered
    }

    lazy var rows: [JSONObject] = {
      var observed: [String: JSON] = ["server_url": .string(serverURL)]
      for (key, value) in observations where observed[key] == nil { observed[key] = value }
      return [JSONObject(Array(observed)), JSONObject(Array(remembered))]
    }()
  }

  /// An answer found: the actions before shaping, the rows, and the values assigned.
  struct Finding {
    var skill: Skill
    var rows: [JSON]
    var captures: [String]
    var actions: [JSONObject]
    var assigned: [(String, String)]
    var bang: String?
  }

  /// Answers `query`.
  func think(query: String, context: Context, random: inout SeededRandom) -> Thought {
    var budget = AnswerEngine.reflectionBudget
    guard
      let finding = find(
        query: query, context: context, assigned: [], depth: 0, budget: &budget, random: &random)
    else {
      var data: [JSON] = []
      merge([("0", .string(query))] + context.observations, into: &data)
      let actions: [JSONObject] = [
        [
          "type": "answer", "language": .string(context.language),
          "expression": .string(Fallback.text(language: context.language)), "mood": "sabta",
        ],
        ["type": "websearch", "query": .string(query)],
      ]
      return Thought(
        data: data, actions: shape(actions, debug: context.debug), skillPath: Fallback.skillPath,
        skill: nil)
    }
    var rows = finding.rows
    var observed: [(String, JSON)] = finding.captures.enumerated().map {
      (String($0.offset), .string($0.element))
    }
    if let bang = finding.bang { observed.append(("!", .string(bang))) }
    observed += finding.assigned.map { ($0.0, .string($0.1)) }
    merge(observed + context.observations, into: &rows)
    return Thought(
      data: rows, actions: shape(finding.actions, debug: context.debug),
      skillPath: finding.skill.serverPath, skill: finding.skill)
  }

  /// The minds asked in order: the focus skills, the persona, then the chat skills.
  private func minds(_ context: Context) -> [SkillMind] {
    if let only = context.only { return [only] }
    var minds: [SkillMind] = []
    if let focus = context.focus?.lowercased(), let mind = library.focusMinds[focus] {
      minds.append(mind)
    }
    if let persona = context.persona?.lowercased(), let mind = library.personaMinds[persona] {
      minds.append(mind)
    }
    minds.append(library.mind)
    return minds
  }

  /// The first candidate that answers, or nil.
  private func find(
    query: String, context: Context, assigned: [(String, String)], depth: Int,
    budget: inout Int, random: inout SeededRandom
  ) -> Finding? {
    let prepared = SkillPattern.Query(query)
    guard !prepared.isTooLong, !prepared.text.isEmpty else { return nil }
    for mind in minds(context) {
      for match in mind.matches(prepared, language: context.language, ranking: context.ranking) {
        let skill = library.skills[Int(match.entry.skill)]
        // A skill read late from a file that changed since the index was made has no intents.
        guard let intent = skill.intent(Int(match.entry.intent)) else { continue }
        for captures in match.captures {
          if let finding = consider(
            intent, of: skill, captures: [query] + captures, context: context,
            assigned: assigned, depth: depth, budget: &budget, random: &random)
          {
            return finding
          }
        }
      }
    }
    return nil
  }

  /// Applies one intent: conditions, its rule, then its actions; nil when it cannot answer.
  private func consider(
    _ intent: SkillIntent, of skill: Skill, captures: [String], context: Context,
    assigned inherited: [(String, String)], depth: Int, budget: inout Int,
    random: inout SeededRandom
  ) -> Finding? {
    var captureRow: [String: JSON] = [:]
    if intent.dropsMatch {
      // `!rest` dropped the match's only row: nothing is left to answer with but the actions.
      guard !intent.actions.isEmpty else { return nil }
    } else {
      for (index, capture) in captures.enumerated() {
        captureRow[String(index)] = .string(capture)
      }
    }
    var assigned = inherited
    func bindings(_ assigned: [(String, String)], rows: [JSON] = []) -> SkillBindings {
      var assignedLayer: [String: JSON] = [:]
      for (key, value) in assigned.reversed() where assignedLayer[key] == nil {
        assignedLayer[key] = .string(value)
      }
      var rowLayers = [assignedLayer, captureRow]
      rowLayers += rows.compactMap { row in
        row.object.map { Dictionary($0.members.map { ($0.key, $0.value) }) { first, _ in first } }
      }
      return SkillBindings(
        rows: rowLayers.map { JSONObject(Array($0)) } + context.standingRows)
    }
    for condition in intent.conditions {
      guard AnswerEngine.holds(condition, bindings(assigned)) != condition.negated else {
        return nil
      }
    }
    var rows: [JSON] = []
    var bang: String?
    switch intent.rule {
    case .none: break
    case .console(let rule):
      if rule.url != nil {
        guard
          let fetched = procedures.console(
            rule, bindings: bindings(assigned), place: skill.place(line: rule.line))
        else {
          return nil
        }
        rows = fetched
      } else if let data = rule.rows {
        let template = AnswerTemplate(bindings: bindings(assigned))
        rows = data.map { template.fill($0) }
      } else if rule.definition["actions"]?.array == nil {
        return nil
      }
    case .javascript(let script, let line):
      // An empty `$!$` (the script's value and its printout both empty) answers nothing: the
      // next intent does, silently.
      guard let filled = bindings(assigned).fill(script),
        let result = procedures.javascript(
          filled, bindings: bindings(assigned), place: skill.place(line: line)),
        !result.isEmpty
      else { return nil }
      bang = result
      captureRow["!"] = .string(result)
    }
    var actions: [JSONObject] = []
    for action in intent.actions {
      switch action {
      case .answer(let phrases, let line):
        guard !phrases.isEmpty else { continue }
        let phrase = phrases[Int.random(in: 0..<phrases.count, using: &random)]
        guard
          let expression = evaluate(
            phrase, context: context, assigned: &assigned, bindings: { bindings($0, rows: rows) },
            depth: depth, budget: &budget, random: &random)
        else { return nil }
        guard !expression.isEmpty else { continue }
        actions.append([
          "type": "answer", "language": .string(skill.language), "line": .int(line),
          "expression": .string(expression),
        ])
      case .other(let object):
        let template = AnswerTemplate(bindings: bindings(assigned, rows: rows))
        if let filled = template.fill(.object(object)).object { actions.append(filled) }
      }
    }
    let template = AnswerTemplate(bindings: bindings(assigned, rows: rows))
    for plan in intent.plans {
      guard let delay = Self.milliseconds(template.fill(plan.delay)) else { continue }
      actions.append([
        "type": "answer", "language": .string(skill.language),
        "expression": .string(template.fill(plan.template)), "plan_delay": .int(delay),
        "plan_date": .string(
          SusiDateFormat.millis(context.now.addingTimeInterval(Double(delay) / 1000))),
      ])
    }
    guard !actions.isEmpty else { return nil }
    return Finding(
      skill: skill, rows: rows, captures: intent.dropsMatch ? [] : captures, actions: actions,
      assigned: Array(assigned.dropFirst(inherited.count)), bang: bang)
  }

  /// One answer phrase, as `SusiArgument.applyAction` makes it: variables filled in, then
  /// assignments (`value>name`, `^value^>name`) taken out and remembered, then reflections
  /// asked, until nothing changes. nil when a variable is bound to nothing or a reflection
  /// finds no answer.
  private func evaluate(
    _ phrase: String, context: Context, assigned: inout [(String, String)],
    bindings: ([(String, String)]) -> SkillBindings, depth: Int, budget: inout Int,
    random: inout SeededRandom
  ) -> String? {
    var expression = phrase
    for _ in 0..<16 {
      var changed = false
      if expression.contains("$") {
        guard let filled = bindings(assigned).fill(expression) else { return nil }
        changed = changed || filled != expression
        expression = filled
      }
      while let (value, name, rest) = Assignment.visible(in: expression) {
        assigned.append((name, value))
        expression = rest
        changed = true
      }
      while let (value, name, rest) = Assignment.blind(in: expression) {
        assigned.append((name, value))
        expression = rest
        changed = true
      }
      if let open = expression.firstIndex(of: "`") {
        let afterOpen = expression.index(after: open)
        guard let close = expression[afterOpen...].firstIndex(of: "`"),
          depth < AnswerEngine.reflectionDepth, budget > 0
        else { return nil }
        budget -= 1
        let inner = String(expression[afterOpen..<close])
        var reflectionContext = context
        reflectionContext.focus = nil
        guard
          let finding = find(
            query: inner, context: reflectionContext, assigned: assigned, depth: depth + 1,
            budget: &budget, random: &random),
          let answer = finding.actions.first(where: { $0["plan_delay"] == nil })?["expression"]?
            .string
        else { return nil }
        assigned += finding.assigned
        expression =
          (expression[..<open] + answer + expression[expression.index(after: close)...]).trimmed
        changed = true
      }
      if !changed { break }
    }
    return expression
  }

  /// Whether a `?` condition holds: `$_x$` when it is bound to a non-empty value, `$_x$=value`
  /// when the value matches (as a regular expression or, failing that, as text ignoring case).
  static func holds(_ condition: Condition, _ bindings: SkillBindings) -> Bool {
    let expression = condition.expression
    guard let equals = expression.firstIndex(of: "=") else {
      guard let value = bindings.fill(expression) else { return false }
      return !value.trimmed.isEmpty
    }
    guard let value = bindings.fill(expression[..<equals].trimmed),
      let wanted = bindings.fill(expression[expression.index(after: equals)...].trimmed)
    else { return false }
    if value.lowercased() == wanted.lowercased() { return true }
    guard
      let regex = try? NSRegularExpression(
        pattern: "^(?:" + wanted + ")$", options: [.caseInsensitive])
    else { return false }
    return regex.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
  }

  private func shape(_ actions: [JSONObject], debug: Bool) -> [JSONObject] {
    let unified = actions.map(ActionShaping.unify)
    return debug ? unified : ActionShaping.uniqueActions(unified)
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

/// The assignments inside answers (`SusiAction.visible_assignment`, `blind_assignment`).
enum Assignment {
  /// `?!,.;-` and white space: what ends a visibly assigned value on its left and what may
  /// follow the variable name.
  static func isSeparator(_ character: Character) -> Bool {
    character.isWhitespace || "?!,.;-".contains(character)
  }

  static func isNameCharacter(_ character: Character) -> Bool {
    character.isASCII && (character.isLetter || character.isNumber || character == "_")
  }

  /// The end of the variable name after `>` at `arrow`, when a name follows and the text ends
  /// or a separator comes after it.
  private static func nameEnd(_ text: String, after arrow: String.Index) -> String.Index? {
    var end = text.index(after: arrow)
    while end < text.endIndex, isNameCharacter(text[end]) { end = text.index(after: end) }
    guard end > text.index(after: arrow), end == text.endIndex || isSeparator(text[end]) else {
      return nil
    }
    return end
  }

  /// `I like pizza>_food`: the value (the last word before `>`), the name and the text without
  /// `>name`; the last assignment in the text first, as the real server's greedy match finds.
  static func visible(in text: String) -> (String, String, String)? {
    var arrow = text.endIndex
    while let found = text[..<arrow].lastIndex(of: ">") {
      arrow = found
      guard found > text.startIndex, let end = nameEnd(text, after: found) else { continue }
      let before = text[..<found]
      // The value starts after the last separator that leaves it non-empty.
      let lastValueCharacter = before.index(before: before.endIndex)
      let start =
        before[..<lastValueCharacter].lastIndex(where: isSeparator).map { before.index(after: $0) }
        ?? before.startIndex
      let value = String(before[start...])
      guard !value.contains("^") else { continue }
      if let dollar = value.firstIndex(of: "$"), dollar > value.startIndex { continue }
      if let tick = value.firstIndex(of: "`"), tick > value.startIndex { continue }
      let name = String(text[text.index(after: found)..<end])
      return (value, name, String(text[..<found] + text[end...]))
    }
    return nil
  }

  /// `^value^>name`: the value, the name and the text without the whole assignment; the first
  /// in the text first.
  static func blind(in text: String) -> (String, String, String)? {
    var searchFrom = text.startIndex
    while let open = text[searchFrom...].firstIndex(of: "^") {
      var probe = text.index(after: open)
      while let close = text[probe...].firstIndex(of: "^") {
        let arrow = text.index(after: close)
        if arrow < text.endIndex, text[arrow] == ">", let end = nameEnd(text, after: arrow) {
          let value = String(text[text.index(after: open)..<close])
          if let dollar = value.firstIndex(of: "$"), dollar > value.startIndex { break }
          if let tick = value.firstIndex(of: "`"), tick > value.startIndex { break }
          let name = String(text[text.index(after: arrow)..<end])
          return (value, name, String(text[..<open] + text[end...]))
        }
        probe = text.index(after: close)
      }
      searchFrom = text.index(after: open)
    }
    return nil
  }
}
