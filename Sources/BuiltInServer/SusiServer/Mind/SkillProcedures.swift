public import SusiJSON

/// What an intent's rule can read while it is considered: the query's captures, the data
/// rows so far, the chat's observations and the user's remembered values.
public struct SkillBindings: Sendable {
  /// Newest first: the values this answer assigned, then data rows (`$0$`, `$1$` … and
  /// console rows), then observations (`$timezoneOffset$`, `$language$` …), then what the user's
  /// earlier answers assigned (`$_name$`).
  var layers: [[String: JSON]]

  /// The value of `$name$` (or `$name.key$` for an object), or nil when nothing binds it.
  public func value(_ name: String) -> String? {
    for layer in layers {
      if let value = layer[name] { return SkillBindings.text(value) }
    }
    if let dot = name.firstIndex(of: ".") {
      let head = String(name[..<dot])
      let key = String(name[name.index(after: dot)...])
      for layer in layers {
        if let object = layer[head]?.object, let value = object[key] {
          return SkillBindings.text(value)
        }
      }
    }
    return nil
  }

  /// `text` with every `$name$` filled in (percent-encoded when `urlEncoded`), or nil when a
  /// variable is bound to nothing: the real server's unification fails then, and the intent is
  /// passed over.
  public func fill(_ text: String, urlEncoded: Bool = false) -> String? {
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
      if !name.isEmpty, name.allSatisfy(SkillBindings.isNameCharacter) {
        guard let value = value(String(name)) else { return nil }
        out += urlEncoded ? SkillBindings.percentEncoded(value) : value
        rest = rest[rest.index(after: close)...]
      } else {
        out += "$"
        rest = rest[afterOpen...]
      }
    }
    out += rest
    return out
  }

  static func isNameCharacter(_ character: Character) -> Bool {
    character.isLetter || character.isNumber || character == "_" || character == "!"
      || character == "."
  }

  static func text(_ value: JSON) -> String {
    switch value {
    case .string(let text): text
    case .int(let number): String(number)
    case .double(let number): String(number)
    case .bool(let flag): String(flag)
    case .null: ""
    default: value.compactText
    }
  }

  /// RFC 3986 unreserved characters kept, everything else as `%XX` of its UTF-8 bytes.
  static func percentEncoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = Array("0123456789ABCDEF")
        out += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])"
      }
    }
    return out
  }
}

/// The rules that need more than the skill file: a `!console:` rule with a `url` (fetched
/// from the network) and a `!javascript:` rule. The server asks these when an intent with such
/// a rule is the best match; nil means "cannot answer here", and the intent is passed over for
/// the next one (or the fallback), never an error.
public protocol SkillProcedures: Sendable {
  /// The data rows of a console rule that names a `url` (after its `path` is applied), or nil.
  /// Fill the rule's strings with `bindings.fill(_:urlEncoded:)`.
  func console(_ rule: ConsoleRule, bindings: SkillBindings) -> [JSON]?
  /// The result of a javascript rule, the value of `$!$`, or nil. The script's variables are
  /// filled in already.
  func javascript(_ script: String, bindings: SkillBindings) -> String?
}

/// No network and no script engine: console rules with a `url` and javascript rules fall
/// through to the next intent.
public struct OfflineSkillProcedures: SkillProcedures {
  public init() {}
  public func console(_ rule: ConsoleRule, bindings: SkillBindings) -> [JSON]? { nil }
  public func javascript(_ script: String, bindings: SkillBindings) -> String? { nil }
}
