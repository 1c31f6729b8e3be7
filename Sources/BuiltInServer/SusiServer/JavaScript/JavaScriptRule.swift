import Foundation
public import SusiScript

/// `!javascript:` rules: the script between `!javascript:` and `eol`, with its `$name$`
/// variables filled in, runs in duktape (ECMAScript 5.1, as the real server's Nashorn), sandboxed
/// by `ScriptEngine`; its value, trimmed, is the rule's `$!$`, or what it printed when the value
/// is empty (as on the real server, where `print` went to the answer).
///
/// Unlike the real server, which answered with the error message of a failing script, a script
/// that fails gives no answer: the interpreter tries the next intent.
public enum JavaScriptRule {
  /// `$!$` for `script` with `bindings`; `.failure` says why there is none. A variable no row
  /// holds fails the rule before it runs (`unfilledVariable`), as on the real server.
  public static func run(_ script: String, bindings: SkillBindings, limits: ScriptLimits)
    -> Result<String, JavaScriptRuleError>
  {
    guard let source = bindings.fill(script) else { return .failure(.unfilledVariable) }
    switch ScriptEngine.evaluate(source, limits: limits) {
    case .success(let outcome):
      let value = outcome.value.trimmingCharacters(in: .whitespacesAndNewlines)
      return .success(
        value.isEmpty ? outcome.printed.trimmingCharacters(in: .whitespacesAndNewlines) : value)
    case .failure(let error):
      return .failure(.script(error))
    }
  }
}

/// Why a `!javascript:` rule gave no `$!$`.
public enum JavaScriptRuleError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The script names a variable (`$name$`) that nothing holds.
  case unfilledVariable
  /// The script failed or was stopped.
  case script(ScriptError)

  public var description: String {
    switch self {
    case .unfilledVariable: "a variable in the script has no value"
    case .script(let error): error.description
    }
  }
}
