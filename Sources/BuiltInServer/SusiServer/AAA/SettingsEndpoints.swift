import SusiJSON

/// `/aaa/changeUserSettings.json` and `/aaa/listUserSettings.json` (both need a login).
///
/// Settings are sent as their own parameters (`theme=dark&speechRate=0.8`); only the 21 keys
/// the real server knows are stored, all as strings. The admin-only `email=` parameter (edit
/// another user) is not offered.
enum SettingsEndpoints {
  static let allowedKeys: [String] = [
    "server", "enterAsSend", "micInput", "speechOutput", "speechOutputAlways", "speechRate",
    "speechPitch", "ttsLanguage", "userName", "prefLanguage", "timeZone", "countryCode",
    "countryDialCode", "phoneNo", "checked", "serverUrl", "theme", "backgroundImage",
    "messageBackgroundImage", "customThemeValue", "avatarType",
  ]

  static func change(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let allowed = Set(allowedKeys)
    var changes: [(String, String)] = []
    for (key, value) in request.parameters.pairs
    where allowed.contains(key) && !changes.contains(where: { $0.0 == key }) {
      changes.append((key, value))
    }
    guard !changes.isEmpty else {
      throw APIError(400, "Bad Service call, key or value parameters not provided")
    }
    if let userName = changes.first(where: { $0.0 == "userName" })?.1,
      !isValidUserName(userName)
    {
      throw APIError(400, "Enter atleast 5 character, upto 51 character")
    }
    try request.changeAccount { (account: inout Account) throws(APIError) in
      for (key, value) in changes { account.settings[key] = .string(value) }
    }
    return JSONReply([
      "accepted": true, "message": "You successfully changed settings of your account!",
    ])
  }

  static func list(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let account = try request.storedAccount()
    // `devices` as the real server sent it here until mid-2019 (older clients read it).
    return JSONReply([
      "settings": .object(account.settings), "devices": .object(account.devices),
      "accepted": true, "message": "Success: Showing user settings",
    ])
  }

  /// `^(.{5,51})$` in Java: 5 to 51 UTF-16 units, none a line break.
  static func isValidUserName(_ name: String) -> Bool {
    let length = name.utf16.count
    return (5...51).contains(length)
      && !name.unicodeScalars.contains { "\n\r\u{85}\u{2028}\u{2029}".unicodeScalars.contains($0) }
  }
}
