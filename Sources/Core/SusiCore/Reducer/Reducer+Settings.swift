// User settings, which live on the server and sync across devices.

extension State {
  mutating func changeSettings(_ p: Action.ChangeSettings, _ event: Event) -> Reaction {
    guard !p.settings.isEmpty else { return .rejected("no settings to change") }
    // Values may come in the server's string form; what is stored and kept is the typed value.
    // Each key is checked on its own; the refusal named is the one of the first key in key
    // order, so always the same one (found without sorting the keys).
    var typed: [String: SettingValue] = Dictionary(minimumCapacity: p.settings.count)
    var refused: (key: String, reason: String)?
    for (key, value) in p.settings {
      switch SettingKey.checked(key: key, value: value) {
      case .success(let value): typed[key] = value
      case .failure(let refusal):
        if refused.map({ key < $0.key }) ?? true { refused = (key, refusal.reason) }
      }
    }
    if let refused { return .rejected(refused.reason) }
    if let refusal = loginProblem(event, for: .changeSettings) { return refusal }
    return start(.changeSettings, event, .storeSettings(server: server, settings: typed))
  }

  mutating func settingsChanged(_ p: Action.SettingsChanged, _ event: Event) -> Reaction {
    finish(event, completing: .changeSettings)
    for (key, value) in p.settings { settings[key] = value }
    return []
  }

  mutating func syncSettings(_ event: Event) -> Reaction {
    if let refusal = loginProblem(event, for: .syncSettings) { return refusal }
    return start(.syncSettings, event, .fetchSettings(server: server))
  }

  mutating func settingsSynced(_ p: Action.SettingsSynced, _ event: Event) -> Reaction {
    finish(event, completing: .syncSettings)
    settings = p.settings
    return []
  }
}
