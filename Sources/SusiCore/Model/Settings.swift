/// A user setting's value, typed. The server stores and returns every value as a string; the
/// runner converts them through `SettingKey.parse` so the state holds real booleans and numbers.
public enum SettingValue: Hashable, Sendable, Codable, CustomStringConvertible {
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

  private static let kinds: [String: Kind] = Dictionary(
    uniqueKeysWithValues: allowed.map { ($0.key, $0.kind) })

  /// The type of `key`, or nil when the server does not accept it.
  public static func kind(of key: String) -> Kind? { kinds[key] }

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

  /// Why `value` is not acceptable for `key`, or nil when it is.
  public static func problem(key: String, value: SettingValue) -> String? {
    guard let kind = kind(of: key) else {
      return
        "unknown setting '\(key)'; the server accepts: \(allowed.map(\.key).joined(separator: ", "))"
    }
    switch (kind, value) {
    case (.bool, .bool), (.number, .number), (.string, .string): break
    case (.bool, _): return "setting '\(key)' takes true or false"
    case (.number, _): return "setting '\(key)' takes a number"
    case (.string, _): return "setting '\(key)' takes text"
    }
    if key == "userName", case .string(let name) = value, !(5...51).contains(name.count) {
      return "userName must be 5 to 51 characters long"
    }
    return nil
  }
}
