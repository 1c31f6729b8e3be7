import SusiJSON

/// The rules the interpreter hands over: each gives nil when it does not answer, and the
/// interpreter then tries the next intent (the fallback at last), as the real server does.
extension ServerContext {
  /// `$!$` of a `!javascript:` rule, or nil after a warning naming `skill` and `line` when the
  /// script fails or is stopped (a variable without value fails it silently).
  func javascript(_ script: String, bindings: SkillBindings, skill: String, line: Int) -> String? {
    switch JavaScriptRule.run(script, bindings: bindings, limits: configuration.scriptLimits) {
    case .success(let value):
      return value
    case .failure(.unfilledVariable):
      return nil
    case .failure(let error):
      configuration.ruleWarnings?("\(skill) line \(line): !javascript: failed: \(error)")
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
