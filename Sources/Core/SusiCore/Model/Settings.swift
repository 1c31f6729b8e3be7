/// A user setting's value, typed. The server stores and returns every value as a string; the
/// runner converts them through `SettingKey.parse` so the state holds real booleans and numbers.
public enum SettingValue: Hashable, Sendable, CustomStringConvertible {
  case bool(Bool)
  case number(Double)
  case string(String)

  /// The text the server stores for this value (`true`, `0.8`, `dark`).
  public var serverText: String {
    switch self {
    case .bool(let b): b ? "true" : "false"
    case .number(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    case .string(let s): s
    }
  }

  public var description: String { serverText }
}

/// The settings the SUSI server accepts (`ChangeUserSettings.possibleKeys`), with their types.
/// Anything else is silently ignored by the server, so we refuse it before sending.
public enum SettingKey {
  public enum Kind: String, Sendable {
    case bool, number, string
  }

  /// The 21 keys in the server's order.
  public static let allowed: [(key: String, kind: Kind)] = [
    ("server", .string), ("enterAsSend", .bool), ("micInput", .bool), ("speechOutput", .bool),
    ("speechOutputAlways", .bool), ("speechRate", .number), ("speechPitch", .number),
    ("ttsLanguage", .string), ("userName", .string), ("prefLanguage", .string),
    ("timeZone", .string), ("countryCode", .string), ("countryDialCode", .string),
    ("phoneNo", .string), ("checked", .bool), ("serverUrl", .string), ("theme", .string),
    ("backgroundImage", .string), ("messageBackgroundImage", .string),
    ("customThemeValue", .string), ("avatarType", .string),
  ]

  /// What a key takes: its type, and the choices, range or length its value must keep to.
  private struct Rule {
    var kind: Kind
    var choices: [String]?
    var range: ClosedRange<Double>?
    var length: ClosedRange<Int>?
  }

  /// Every accepted key's rule, from the tables here: checking a value looks its key up once.
  private static let rules: [String: Rule] = Dictionary(
    uniqueKeysWithValues: allowed.map {
      (
        $0.key,
        Rule(
          kind: $0.kind, choices: choices[$0.key], range: ranges[$0.key], length: lengths[$0.key])
      )
    })

  /// The type of `key`, or nil when the server does not accept it.
  public static func kind(of key: String) -> Kind? { rules[key]?.kind }

  /// Reads a value as text (from the server, or typed by a person) into its key's type.
  /// Returns nil when the text does not fit the type. Unknown keys are kept as strings.
  public static func parse(_ text: String, for key: String) -> SettingValue? {
    switch kind(of: key) ?? .string {
    case .bool:
      switch text.lowercased() {
      case "true", "1", "yes", "on": return .bool(true)
      case "false", "0", "no", "off": return .bool(false)
      default: return nil
      }
    case .number:
      guard let d = Double(text), d.isFinite else { return nil }
      return .number(d)
    case .string:
      return .string(text)
    }
  }

  /// The only values of the text settings that the SUSI clients give a meaning to.
  public static let choices: [String: [String]] = [
    "theme": ["light", "dark", "custom"], "avatarType": ["default", "server", "gravatar"],
  ]

  /// The range of each number setting: the rate and pitch speech synthesis accepts.
  public static let ranges: [String: ClosedRange<Double>] = [
    "speechRate": 0.1...10, "speechPitch": 0...2,
  ]

  /// The lengths of text settings the server checks itself.
  public static let lengths: [String: ClosedRange<Int>] = ["userName": 5...51]

  /// What `key` takes, in words: its type and allowed values (`a number from 0.1 to 10`).
  public static func accepts(_ key: String) -> String {
    if let choices = choices[key] { return "one of " + choices.joined(separator: ", ") }
    if let range = ranges[key] {
      return "a number from \(SettingValue.number(range.lowerBound)) to "
        + "\(SettingValue.number(range.upperBound))"
    }
    if let length = lengths[key] {
      return "text of \(length.lowerBound) to \(length.upperBound) characters"
    }
    switch kind(of: key) ?? .string {
    case .bool: return "true or false"
    case .number: return "a number"
    case .string: return "text"
    }
  }

  /// `value` as its key's type, once it is known to be allowed. The server's own string form is
  /// accepted for every type (`"0.8"` for a number, `"true"` for a boolean), since that is how
  /// it hands settings out; the result is the typed value, so the state and the server agree.
  public static func checked(key: String, value: SettingValue) -> Result<SettingValue, Refusal> {
    guard let rule = rules[key] else {
      return .failure(
        Refusal(
          "unknown setting '\(key)'; the server accepts: \(allowed.map(\.key).joined(separator: ", "))"
        ))
    }
    let kind = rule.kind
    var typed = value
    if case .string(let text) = value, kind != .string, let parsed = parse(text, for: key) {
      typed = parsed
    }
    switch (kind, typed) {
    case (.bool, .bool): return .success(typed)
    case (.number, .number(let number)):
      if let range = rule.range, !range.contains(number) {
        return .failure(Refusal("setting '\(key)' takes \(accepts(key)), not \(typed)"))
      }
      return .success(typed)
    case (.string, .string(let text)):
      if let choices = rule.choices, !choices.contains(text) {
        return .failure(Refusal("setting '\(key)' takes \(accepts(key)), not '\(text)'"))
      }
      if let length = rule.length, !length.contains(text.count) {
        return .failure(Refusal("setting '\(key)' takes \(accepts(key))"))
      }
      return .success(typed)
    case (.bool, _): return .failure(Refusal("setting '\(key)' takes true or false"))
    case (.number, _): return .failure(Refusal("setting '\(key)' takes a number"))
    case (.string, _): return .failure(Refusal("setting '\(key)' takes text"))
    }
  }

  /// Why `value` is not acceptable for `key`, or nil when it is.
  public static func problem(key: String, value: SettingValue) -> String? {
    if case .failure(let refusal) = checked(key: key, value: value) { return refusal.reason }
    return nil
  }

  /// Why a setting's value was refused.
  public struct Refusal: Error, Equatable {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
  }
}
