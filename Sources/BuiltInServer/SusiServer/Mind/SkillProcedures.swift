public import SusiJSON
import SusiScript

/// The rules that need more than the skill file: a `!console:` rule with a `url` (fetched
/// from the network) and a `!javascript:` rule. The server asks these when an intent with such
/// a rule is the best match; nil means "cannot answer here", and the intent is passed over for
/// the next one (or the fallback), never an error. `place` names the rule's file and line for a
/// warning, as `--check-skills` prints them (`models/general/GROUP/en/NAME.txt:LINE`).
public protocol SkillProcedures: Sendable {
  /// The data rows of a console rule that names a `url` (after its `path` is applied), or nil.
  /// Fill the rule's strings with `bindings.fill(_:urlEncoded:)`.
  func console(_ rule: ConsoleRule, bindings: SkillBindings, place: String) -> [JSON]?
  /// The result of a javascript rule, the value of `$!$`, or nil. The script's variables are
  /// filled in already.
  func javascript(_ script: String, bindings: SkillBindings, place: String) -> String?
}

/// No network and no script engine: console rules with a `url` and javascript rules fall
/// through to the next intent.
public struct OfflineSkillProcedures: SkillProcedures {
  public init() {}
  public func console(_ rule: ConsoleRule, bindings: SkillBindings, place: String) -> [JSON]? {
    nil
  }
  public func javascript(_ script: String, bindings: SkillBindings, place: String) -> String? {
    nil
  }
}

/// No network, but scripts: `!javascript:` rules run (they need no network), console rules with
/// a `url` fall through. What `susi server --check-skills` asks skills with.
public struct OfflineScriptProcedures: SkillProcedures {
  public init() {}
  public func console(_ rule: ConsoleRule, bindings: SkillBindings, place: String) -> [JSON]? {
    nil
  }
  public func javascript(_ script: String, bindings: SkillBindings, place: String) -> String? {
    try? JavaScriptRule.run(script, bindings: bindings, limits: ScriptLimits()).get()
  }
}
