import Foundation
import SusiScript
import Testing

@testable import SusiServer

@Suite struct JavaScriptRuleTests {
  @Test func theScriptRunsWithItsVariablesFilledIn() {
    let bindings = SkillBindings.captures(["3 plus 4", "3", "4"])
    #expect(
      JavaScriptRule.run("$1$ + $2$;", bindings: bindings, limits: ScriptLimits()) == .success("7"))
    #expect(
      JavaScriptRule.run(
        "Math.pow($1$, $2$).toString().split('.')[0];", bindings: bindings, limits: ScriptLimits())
        == .success("81"))
  }

  @Test func printedTextAnswersWhenTheValueIsEmpty() {
    #expect(
      JavaScriptRule.run(
        "var d = 'x'; print('  it is ' + d + '  ');", bindings: SkillBindings(),
        limits: ScriptLimits())
        == .success("it is x"))
  }

  @Test func aFailingScriptWarnsAndGivesNoAnswer() throws {
    let warnings = WarningLog()
    let server = try TestServer { $0.ruleWarnings = warnings.sink }
    let context = server.handler.context
    #expect(context.javascript("1 +", bindings: SkillBindings(), skill: "calc.txt", line: 4) == nil)
    #expect(warnings.all.count == 1)
    #expect(
      warnings.all.first?.hasPrefix("calc.txt line 4: !javascript: failed: SyntaxError") == true)
    // A variable without a value fails the rule quietly, as an intent that does not fit.
    #expect(
      context.javascript("$1$ * 2", bindings: SkillBindings(), skill: "calc.txt", line: 5) == nil)
    #expect(warnings.all.count == 1)
    #expect(
      context.javascript("while (true) {}", bindings: SkillBindings(), skill: "loop.txt", line: 1)
        == nil)
    #expect(warnings.all.last?.contains("stopped after") == true)
    #expect(
      context.javascript("6 * 7", bindings: SkillBindings(), skill: "calc.txt", line: 6) == "42")
  }
}
