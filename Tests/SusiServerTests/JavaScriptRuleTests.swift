import Foundation
import SusiJSON
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
    #expect(context.javascript("1 +", bindings: SkillBindings(), place: "calc.txt:4") == nil)
    #expect(warnings.all.count == 1)
    #expect(warnings.all.first?.hasPrefix("calc.txt:4: !javascript: failed: SyntaxError") == true)
    // A variable without a value fails the rule quietly, as an intent that does not fit.
    #expect(context.javascript("$1$ * 2", bindings: SkillBindings(), place: "calc.txt:5") == nil)
    #expect(warnings.all.count == 1)
    #expect(
      context.javascript("while (true) {}", bindings: SkillBindings(), place: "loop.txt:1") == nil)
    #expect(warnings.all.last?.contains("stopped after") == true)
    #expect(context.javascript("6 * 7", bindings: SkillBindings(), place: "calc.txt:6") == "42")
  }

  /// Asked through the chat: a failing script's warning names its file and line; a script whose
  /// value and printout are both empty declines without a warning. Either way the next intent
  /// (here the fallback) answers.
  @Test func aChatNamesTheFailingRuleAndAnEmptyResultDeclinesQuietly() throws {
    let warnings = WarningLog()
    let data = try dataDirectory([
      "Knowledge/en/calc": """
      broken sum
      !example:broken sum
      !javascript:$!$
      1 +
      eol

      empty sum
      !example:empty sum
      !javascript:The sum is $!$.
      undefined
      eol
      """
    ])
    let server = try TestServer(dataDirectory: data) { $0.ruleWarnings = warnings.sink }
    for query in ["broken sum", "empty sum"] {
      let reply = try server.json("/susi/chat.json", [("q", query)])
      let skills = reply["answers"]?.array?.first?["skills"]?.array ?? []
      #expect(!skills.contains { $0.string?.hasSuffix("calc.txt") == true }, "\(query)")
    }
    #expect(warnings.all.count == 1)
    #expect(
      warnings.all.first?.hasPrefix(
        "models/general/Knowledge/en/calc.txt:3: !javascript: failed: SyntaxError") == true,
      "\(warnings.all)")
  }
}
