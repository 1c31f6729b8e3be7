import SusiJSON

/// Actions a rule declares (a console rule's `actions`), checked and filled as the real server
/// does (`SusiAction`, `SusiArgument.applyAction`).
enum SkillAction {
  /// The fields each action type needs; a declared action of another type, or without one of
  /// them, is left out, as the real server leaves it out.
  static let requiredFields: [String: [String]] = [
    "answer": [], "stop": [], "pause": [], "resume": [], "restart": [], "previous": [],
    "next": [], "shuffle": [], "timer_reset": [], "table": ["columns"],
    "piechart": ["total", "key", "value", "unit"], "rss": ["title", "description", "link"],
    "websearch": ["query"], "anchor": ["link", "text"], "map": ["latitude", "longitude", "zoom"],
    "timer_set": ["time"], "audio_volume": ["volume"],
    "audio_play": ["identifier", "identifier_type"],
    "video_play": ["identifier", "identifier_type"],
    "image_show": ["url"],
  ]

  /// `action` when its type is known and it has the fields that type needs (an `answer` needs an
  /// `expression` or `phrases`); `table` and `rss` get `count: -1` when they have none.
  static func checked(_ action: JSONObject) -> JSONObject? {
    guard let type = action["type"]?.string, let required = requiredFields[type],
      required.allSatisfy({ action[$0] != nil })
    else { return nil }
    var action = action
    switch type {
    case "answer":
      guard action["expression"] != nil || action["phrases"]?.array != nil else { return nil }
    case "audio_play":
      guard ["url", "youtube", "soundcloud"].contains(action["identifier_type"]?.string ?? "")
      else { return nil }
    case "video_play":
      guard ["url", "youtube"].contains(action["identifier_type"]?.string ?? "") else { return nil }
    case "table", "rss":
      if action["count"] == nil { action["count"] = -1 }
    default: break
    }
    return action
  }

  /// `action` with its variables filled from `bindings`: an answer's expression (one of its
  /// `phrases`, chosen by `pick`), a web search's query, an anchor's link and text, a map's
  /// coordinates and zoom, a player's identifier, a volume (a whole number 0…100). nil when an
  /// answer's expression names a variable no row holds; other fields that cannot be filled stay
  /// as written.
  static func fill(_ action: JSONObject, from bindings: SkillBindings, pick: (Int) -> Int)
    -> JSONObject?
  {
    var action = action
    func fillField(_ name: String) {
      guard let text = action[name]?.string, let filled = bindings.fill(text) else { return }
      action[name] = .string(filled)
    }
    switch action["type"]?.string {
    case "answer":
      if action["expression"] == nil, let phrases = action["phrases"]?.array?.compactMap(\.string),
        !phrases.isEmpty
      {
        let index = min(max(pick(phrases.count), 0), phrases.count - 1)
        action["expression"] = .string(phrases[index])
        action["phrases"] = nil
        action["select"] = nil
      }
      guard let expression = action["expression"]?.string,
        let filled = bindings.fill(expression)
      else { return nil }
      action["expression"] = .string(filled)
    case "websearch": fillField("query")
    case "anchor": ["link", "text"].forEach(fillField)
    case "map": ["latitude", "longitude", "zoom"].forEach(fillField)
    case "audio_play", "video_play": fillField("identifier")
    case "audio_volume":
      let text = action["volume"].map(SkillBindings.text) ?? ""
      let filled = bindings.fill(text) ?? text
      let first = filled.split(separator: " ").first.map(String.init) ?? ""
      action["volume"] = .string(String(min(100, max(0, Int(first) ?? 50))))
    default: break
    }
    return action
  }
}
