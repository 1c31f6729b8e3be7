// User settings, which live on the server and sync across devices.

extension State {
  mutating func changeSettings(_ p: Action.ChangeSettings, _ event: Event) -> Reaction {
    guard !p.settings.isEmpty else { return .rejected("no settings to change") }
    // Values may come in the server's string form; what is stored and kept is the typed value.
    var typed: [String: SettingValue] = [:]
    for key in p.settings.keys.sorted() {
      switch SettingKey.checked(key: key, value: p.settings[key]!) {
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
