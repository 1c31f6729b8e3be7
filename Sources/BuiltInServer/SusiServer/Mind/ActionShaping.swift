import SusiJSON

/// The last touches the real server gives actions before replying.
enum ActionShaping {
  /// Unification: map coordinates and zoom, the web-search query and the volume are strings;
  /// `table` and `rss` carry `count` (-1 = all rows) when the skill did not say.
  static func unify(_ action: JSONObject) -> JSONObject {
    var action = action
    func stringify(_ key: String) {
      if let value = action[key], value.string == nil, value != .null {
        switch value {
        case .int(let number): action[key] = .string(String(number))
        case .double(let number): action[key] = .string(String(number))
        default: action[key] = .string(value.compactText)
        }
      }
    }
    switch action["type"]?.string {
    case "map": ["latitude", "longitude", "zoom"].forEach(stringify)
    case "websearch": stringify("query")
    case "audio_volume": stringify("volume")
    case "table", "rss": if action["count"] == nil { action["count"] = -1 }
    default: break
    }
    return action
  }

  /// The real server's `uniqueActions` (outside debug mode): an action whose `expression`
  /// (missing counts as "") repeats an earlier one is dropped, so of the actions without an
  /// expression only the first survives.
  static func uniqueActions(_ actions: [JSONObject]) -> [JSONObject] {
    var seen = Set<String>()
    return actions.filter { seen.insert($0["expression"]?.string ?? "").inserted }
  }
}
