// User settings, which live on the server and sync across devices.

extension State {
  mutating func changeSettings(_ p: Action.ChangeSettings, _ event: Event) -> Reaction {
    guard !p.settings.isEmpty else { return .rejected("no settings to change") }
    // Values may come in the server's string form; what is stored and kept is the typed value.
    // In key order, so that the first refusal named is always the same one.
    var typed: [String: SettingValue] = Dictionary(minimumCapacity: p.settings.count)
    for (key, value) in p.settings.sorted(by: { $0.key < $1.key }) {
      switch SettingKey.checked(key: key, value: value) {
      case .success(let value): typed[key] = value
      case .failure(let refusal): return .rejected(refusal.reason)
      }
    }
    if let refusal = loginProblem(event, for: .changeSettings) { return refusal }
    return start(.changeSettings, event, .storeSettings(server: server, settings: typed))
  }

  mutating func settingsChanged(_ p: Action.SettingsChanged, _ event: Event) -> Reaction {
    finish(event, completing: .changeSettings)
    settings.merge(p.settings) { $1 }
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
