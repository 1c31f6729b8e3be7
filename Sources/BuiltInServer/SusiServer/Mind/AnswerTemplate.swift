import SusiJSON

/// Fills `$…$` variables in answer texts: `$0$` the whole query, `$1$`… the `*` captures,
/// `$name$` a column of the first data row (`$!$` included), `$server_url$` this server's own
/// base URL (an extension of this server, for answers that link to its pages and images).
/// An unknown variable becomes empty text.
struct AnswerTemplate {
  var captures: [String]
  var row: JSONObject
  var serverURL: String

  func fill(_ text: String) -> String {
    guard text.contains("$") else { return text }
    var out = ""
    var rest = Substring(text)
    while let open = rest.firstIndex(of: "$") {
      out += rest[..<open]
      let afterOpen = rest.index(after: open)
      guard let close = rest[afterOpen...].firstIndex(of: "$") else {
        rest = rest[open...]
        break
      }
      let name = rest[afterOpen..<close]
      if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "!" }) {
        out += value(String(name))
        rest = rest[rest.index(after: close)...]
      } else {
        out += "$"
        rest = rest[afterOpen...]
      }
    }
    out += rest
    return out
  }

  func value(_ name: String) -> String {
    if let index = Int(name) { return index < captures.count ? captures[index] : "" }
    if name == "server_url" { return serverURL }
    switch row[name] {
    case .string(let text)?: return text
    case .int(let number)?: return String(number)
    case .double(let number)?: return String(number)
    case .bool(let flag)?: return String(flag)
    case .none, .null?: return ""
    case .some(let other): return other.compactText
    }
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
