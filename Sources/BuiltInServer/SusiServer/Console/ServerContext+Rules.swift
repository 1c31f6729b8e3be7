import SusiJSON

/// The rules the interpreter hands over: each gives nil when it does not answer, and the
/// interpreter then tries the next intent (the fallback at last), as the real server does.
extension ServerContext {
  /// `$!$` of a `!javascript:` rule, or nil after a warning naming its `place` (file and line)
  /// when the script fails or is stopped (a variable without value fails it silently).
  func javascript(_ script: String, bindings: SkillBindings, place: String) -> String? {
    switch JavaScriptRule.run(script, bindings: bindings, limits: configuration.scriptLimits) {
    case .success(let value):
      return value
    case .failure(.unfilledVariable):
      return nil
    case .failure(let error):
      configuration.ruleWarnings?("\(place): !javascript: failed: \(error)")
      return nil
    }
  }

  /// The rows and actions of a `!console:` rule (see `ConsoleService.answer`), or nil.
  func console(
    _ rule: ConsoleDefinition, bindings: SkillBindings, answers: [String], language: String,
    line: Int, pick: (Int) -> Int
  ) async -> ConsoleAnswer? {
    await consoleService.answer(
      rule, bindings: bindings, answers: answers, language: language, line: line, pick: pick)
  }

  /// `console`, for a caller that is not async (see `ConsoleService.answerWaiting`); never call
  /// it holding the state lock, since it waits for the network.
  func consoleWaiting(
    _ rule: ConsoleDefinition, bindings: SkillBindings, answers: [String], language: String,
    line: Int, pick: @escaping @Sendable (Int) -> Int
  ) -> ConsoleAnswer? {
    consoleService.answerWaiting(
      rule, bindings: bindings, answers: answers, language: language, line: line, pick: pick)
  }
}

/// The procedures the chat runs with: console rules fetched through `ConsoleService`,
/// javascript rules in `ScriptEngine`; each failure is passed over with a warning, as
/// `ServerContext.console` and `javascript` do.
struct NetworkSkillProcedures: SkillProcedures {
  let context: ServerContext

  func console(_ rule: ConsoleRule, bindings: SkillBindings, place: String) -> [JSON]? {
    let definition: ConsoleDefinition
    do { definition = try ConsoleDefinition(definition: rule.definition) } catch {
      context.configuration.ruleWarnings?("\(place): !console: \(error)")
      return nil
    }
    return context.consoleService.rowsWaiting(definition, bindings: bindings)?.map(JSON.object)
  }

  func javascript(_ script: String, bindings: SkillBindings, place: String) -> String? {
    context.javascript(script, bindings: bindings, place: place)
  }
}
