import SusiJSON

/// Fills `$…$` variables in the strings of rows and non-answer actions (map coordinates, links,
/// table columns …) from the bindings; here an unbound variable becomes empty text.
/// `$server_url$` is this server's own base URL (an extension of this server, for answers that
/// link to its pages and images).
struct AnswerTemplate {
  var bindings: SkillBindings

  func fill(_ text: String) -> String {
    bindings.fill(text, unboundAsEmpty: true) ?? text
  }

  /// The same value with every string filled, recursively (for rows and actions).
  func fill(_ value: JSON) -> JSON {
    switch value {
    case .string(let text): .string(fill(text))
    case .array(let items): .array(items.map { fill($0) })
    case .object(let object): .object(JSONObject(object.members.map { ($0.key, fill($0.value)) }))
    default: value
    }
  }
}
