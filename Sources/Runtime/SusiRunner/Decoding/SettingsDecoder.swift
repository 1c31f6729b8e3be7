import SusiCore
import SusiJSON

/// Builds `changeUserSettings` parameters and reads `listUserSettings`.
enum SettingsDecoder {
  /// The parameters for `changeUserSettings`: one per allowed key, in the server's order, each
  /// value as the server's text (`true`, `0.8`, `dark`). Keys the server does not accept are
  /// left out (it would ignore them anyway).
  static func parameters(_ settings: [String: SettingValue]) -> [(String, String)] {
    SettingKey.allowed.compactMap { entry in
      settings[entry.key].map { (entry.key, $0.serverText) }
    }
  }

  /// The settings of a `listUserSettings` reply, typed through `SettingKey.parse`. The server
  /// stores every value as a string; a value that does not fit its key's type is kept as text
  /// rather than dropped.
  static func settings(_ object: JSONObject, place: String) throws(RunnerFailure)
    -> [String: SettingValue]
  {
    try ReplyReader.requireAccepted(object, place: place)
    guard let settings = object.object("settings") else {
      if object["settings"] == nil || object["settings"] == .null { return [:] }
      throw RunnerFailure(.badResponse, "the settings from \(place) are not an object")
    }
    var out: [String: SettingValue] = [:]
    for member in settings {
      guard let text = member.value.lenientText else { continue }
      out[member.key] = SettingKey.parse(text, for: member.key) ?? .string(text)
    }
    return out
  }
}
