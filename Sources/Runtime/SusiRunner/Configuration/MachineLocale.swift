import Foundation

/// What the machine says about where and in which language its user is.
enum MachineLocale {
  /// The current time zone's offset in JavaScript's `getTimezoneOffset()` sign: minutes to add
  /// to local time to get UTC (UTC+1 → -60, UTC-5 → 300).
  static func timezoneOffsetMinutes() -> Int {
    -TimeZone.current.secondsFromGMT() / 60
  }

  /// The ISO 639-1 language of the first of `LC_ALL`, `LC_MESSAGES`, `LANG` that names one
  /// (`de_DE.UTF-8` → `de`); `en` for `C`, `POSIX` or nothing.
  static func language(environment: [String: String] = ProcessInfo.processInfo.environment)
    -> String
  {
    for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
      guard let value = environment[name], !value.isEmpty else { continue }
      return language(fromLocale: value) ?? "en"
    }
    return "en"
  }

  /// `de_DE.UTF-8@euro` → `de`; nil for `C`, `POSIX` or anything that is not a language.
  static func language(fromLocale value: String) -> String? {
    let code = value.prefix { $0 != "_" && $0 != "." && $0 != "@" && $0 != "-" }.lowercased()
    guard code != "c", code != "posix", (2...3).contains(code.count),
      code.allSatisfy({ $0.isASCII && $0.isLetter })
    else { return nil }
    return code
  }
}
