import SusiHTTPTypes
public import SusiJSON

/// The values a rule's `$name$` variables are filled from: rows of data, the most recent first
/// (a console rule's rows before the query's captures `0`, `1`, … before older thoughts), as the
/// real server's unification searches its thoughts.
///
/// `$name$` is the first row's value for `name`; `$x.y$` the member `y` of an object `x` (any
/// depth); `$!$` the result of a javascript or console rule. Strings stand as they are, other
/// values as JSON text (`3`, `2.5`, `true`, `null`).
///
/// ```swift
/// let bindings = SkillBindings.captures(["weather in paris", "paris"])
/// bindings.fill("https://api.example/w?q=$1$", urlEncoded: true)  // "https://api.example/w?q=paris"
/// ```
public struct SkillBindings: Sendable, Equatable {
  /// Searched in order; the first row holding a variable gives its value.
  public var rows: [JSONObject]

  public init(rows: [JSONObject] = []) { self.rows = rows }

  /// The rows a query's match gives: `0` the whole query, `1`, `2` … the wildcard captures.
  public static func captures(_ captures: [String]) -> SkillBindings {
    var row = JSONObject()
    for (index, capture) in captures.enumerated() { row[String(index)] = .string(capture) }
    return SkillBindings(rows: [row])
  }

  /// These bindings with `newer` rows searched first.
  public func adding(_ newer: [JSONObject]) -> SkillBindings {
    SkillBindings(rows: newer + rows)
  }

  /// The value of the variable `name` (`x`, `x.y`, `!`), or nil when no row holds it.
  public func value(_ name: String) -> String? {
    for row in rows {
      if let value = row[name] { return Self.text(value) }
      guard name.contains(".") else { continue }
      let path = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      var current: JSON? = row[path[0]]
      for key in path.dropFirst() { current = current?.object?[key] }
      if let current { return Self.text(current) }
    }
    return nil
  }

  /// `text` with every `$name$` whose name a row holds replaced by its value (percent-encoded
  /// when `urlEncoded`, for URLs); nil when a variable is left that no row holds, which makes
  /// the rule or answer fail as on the real server. A `$` that does not open a variable name
  /// (letters, digits, `_`, `.`, `-`, `!`) stays as it is (`costs $5`).
  public func fill(_ text: String, urlEncoded: Bool = false) -> String? {
    fill(text, urlEncoded: urlEncoded, unboundAsEmpty: false)
  }

  /// `fill`, or with `unboundAsEmpty` a variable no row holds becoming empty text (never nil
  /// then): what rows and non-answer actions get.
  func fill(_ text: String, urlEncoded: Bool = false, unboundAsEmpty: Bool) -> String? {
    guard text.contains("$") else { return text }
    var out = ""
    var rest = Substring(text)
    var unresolved = false
    while let open = rest.firstIndex(of: "$") {
      out += rest[..<open]
      let afterOpen = rest.index(after: open)
      guard let close = rest[afterOpen...].firstIndex(of: "$") else {
        rest = rest[open...]
        break
      }
      let name = String(rest[afterOpen..<close])
      if let value = value(name) {
        out += urlEncoded ? URLEncodedForm.percentEncode(value) : value
        rest = rest[rest.index(after: close)...]
        continue
      }
      if Self.isVariableName(name) {
        if unboundAsEmpty {
          rest = rest[rest.index(after: close)...]
          continue
        }
        unresolved = true
      }
      out += "$"
      rest = rest[afterOpen...]
    }
    out += rest
    return unresolved ? nil : out
  }

  /// Whether `name` reads as a variable, so that leaving it unfilled is a failure.
  static func isVariableName(_ name: Substring) -> Bool {
    !name.isEmpty
      && name.unicodeScalars.allSatisfy { scalar in
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
          || "_.-!".unicodeScalars.contains(scalar)
      }
  }

  static func isVariableName(_ name: String) -> Bool { isVariableName(Substring(name)) }

  /// A value as the real server writes it into text: strings as they are, the rest as JSON.
  static func text(_ value: JSON) -> String {
    switch value {
    case .string(let text): text
    case .int(let number): String(number)
    case .double(let number): String(number)
    case .number(let literal): literal
    case .bool(let flag): String(flag)
    case .null: "null"
    case .array, .object: value.compactText
    }
  }
}
