import SusiCore
import SusiCoreTesting
import Testing

@Suite struct SettingsReducerTests {
  @Test func changeSettingsAsksTheServer() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    let change: [String: SettingValue] = [
      "theme": .string("dark"), "speechRate": .number(1.5), "micInput": .bool(false),
    ]
    t.send(
      .changeSettings(.init(settings: change)),
      { $0.inFlight[1] = InFlightRequest(type: "changeSettings", since: at) },
      effects: [.storeSettings(server: "embedded", settings: change)])
    // Changes have no key: a second one does not cancel the first.
    t.send(
      .changeSettings(.init(settings: ["theme": .string("light")])),
      { $0.inFlight[2] = InFlightRequest(type: "changeSettings", since: at) },
      effects: [.storeSettings(server: "embedded", settings: ["theme": .string("light")])])
  }

  @Test func acceptsEveryKeyTheServerKnowsWithItsType() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    var all: [String: SettingValue] = [:]
    for (key, kind) in SettingKey.allowed {
      switch kind {
      case .bool: all[key] = .bool(true)
      case .number: all[key] = .number(0.5)
      case .string: all[key] = .string(SettingKey.choices[key]?.last ?? "value")
      }
    }
    #expect(all.count == 21)
    t.send(
      .changeSettings(.init(settings: all)),
      { $0.inFlight[1] = InFlightRequest(type: "changeSettings", since: at) },
      effects: [.storeSettings(server: "embedded", settings: all)])
  }

  @Test func rejectsAnEmptyChange() {
    var t = ReducerTester.loggedIn()
    t.send(
      .changeSettings(.init(settings: [:])), rejected: "no settings to change")
  }

  @Test func rejectsAKeyTheServerWouldIgnore() {
    var t = ReducerTester.loggedIn()
    let keys = SettingKey.allowed.map(\.key).joined(separator: ", ")
    t.send(
      .changeSettings(.init(settings: ["colour": .string("red")])),
      rejected: "unknown setting 'colour'; the server accepts: \(keys)")
  }

  @Test func namesTheFirstRefusedKeyInKeyOrderWhateverTheDictionarysOrder() {
    // Each key's own refusal; the one named is always the smallest key's, whichever way the
    // dictionary (its order differs with its hashing seed and size) hands them over.
    var settings: [String: SettingValue] = [
      "userName": .number(1), "theme": .bool(true), "speechRate": .string("fast"),
      "enterAsSend": .string("maybe"), "micInput": .bool(true), "zebra": .bool(true),
    ]
    for extra in 0..<20 {
      var t = ReducerTester.loggedIn()
      t.send(
        .changeSettings(.init(settings: settings)),
        rejected: "setting 'enterAsSend' takes true or false")
      settings["speechPitch"] = extra.isMultiple(of: 2) ? .number(1) : nil
      settings["checked"] = extra.isMultiple(of: 3) ? .bool(false) : nil
    }
  }

  @Test(arguments: [
    ("theme", SettingValue.bool(true), "setting 'theme' takes text"),
    ("userName", .number(12345), "setting 'userName' takes text"),
    ("enterAsSend", .string("maybe"), "setting 'enterAsSend' takes true or false"),
    ("checked", .number(1), "setting 'checked' takes true or false"),
    ("speechRate", .string("fast"), "setting 'speechRate' takes a number"),
    ("speechRate", .string("nan"), "setting 'speechRate' takes a number"),
    ("speechPitch", .bool(false), "setting 'speechPitch' takes a number"),
  ])
  func rejectsAValueOfTheWrongType(key: String, value: SettingValue, reason: String) {
    var t = ReducerTester.loggedIn()
    t.send(.changeSettings(.init(settings: [key: value])), rejected: reason)
  }

  @Test(arguments: ["", "abcd", String(repeating: "x", count: 52)])
  func rejectsAUserNameOutsideFiveToFiftyOneCharacters(name: String) {
    var t = ReducerTester.loggedIn()
    t.send(
      .changeSettings(.init(settings: ["userName": .string(name)])),
      rejected: "setting 'userName' takes text of 5 to 51 characters")
  }

  /// The server hands every setting out as a string, so a program may send one back that way.
  @Test func acceptsTheServersStringFormAndAsksForTheTypedValue() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    let typed: [String: SettingValue] = [
      "speechRate": .number(0.8), "speechPitch": .number(2), "enterAsSend": .bool(true),
      "micInput": .bool(false), "theme": .string("dark"),
    ]
    let asked = t.send(
      .changeSettings(
        .init(settings: [
          "speechRate": .string("0.8"), "speechPitch": .string("2"),
          "enterAsSend": .string("true"), "micInput": .string("false"), "theme": .string("dark"),
        ])),
      { $0.inFlight[1] = InFlightRequest(type: "changeSettings", since: at) },
      effects: [.storeSettings(server: "embedded", settings: typed)])
    t.receive(.settingsChanged(.init(settings: typed)), cause: asked) {
      $0.settings = typed
      $0.inFlight = [:]
    }
  }

  @Test(arguments: [
    (
      "theme", SettingValue.string("purple"),
      "setting 'theme' takes one of light, dark, custom, not 'purple'"
    ),
    ("theme", .string("Dark"), "setting 'theme' takes one of light, dark, custom, not 'Dark'"),
    (
      "avatarType", .string("photo"),
      "setting 'avatarType' takes one of default, server, gravatar, not 'photo'"
    ),
    ("speechRate", .number(0), "setting 'speechRate' takes a number from 0.1 to 10, not 0"),
    ("speechRate", .string("11"), "setting 'speechRate' takes a number from 0.1 to 10, not 11"),
    ("speechPitch", .number(-0.5), "setting 'speechPitch' takes a number from 0 to 2, not -0.5"),
    ("speechPitch", .string("2.5"), "setting 'speechPitch' takes a number from 0 to 2, not 2.5"),
  ])
  func rejectsAValueOutsideItsKeysAllowedValues(key: String, value: SettingValue, reason: String) {
    var t = ReducerTester.loggedIn()
    t.send(.changeSettings(.init(settings: [key: value])), rejected: reason)
  }

  @Test(arguments: [
    ("theme", SettingValue.string("custom")), ("avatarType", .string("gravatar")),
    ("speechRate", .number(0.1)), ("speechRate", .string("10")), ("speechPitch", .number(0)),
    ("speechPitch", .string("2")),
  ])
  func acceptsTheEdgesOfEachKeysAllowedValues(key: String, value: SettingValue) {
    var t = ReducerTester.loggedIn()
    let at = t.now
    let typed = SettingKey.parse(value.serverText, for: key)!
    t.send(
      .changeSettings(.init(settings: [key: value])),
      { $0.inFlight[1] = InFlightRequest(type: "changeSettings", since: at) },
      effects: [.storeSettings(server: "embedded", settings: [key: typed])])
  }

  @Test func describesWhatEveryKeyTakes() {
    let described = SettingKey.allowed.map { "\($0.key): \(SettingKey.accepts($0.key))" }
    #expect(described.count == 21)
    #expect(described.contains("theme: one of light, dark, custom"))
    #expect(described.contains("speechRate: a number from 0.1 to 10"))
    #expect(described.contains("speechPitch: a number from 0 to 2"))
    #expect(described.contains("enterAsSend: true or false"))
    #expect(described.contains("userName: text of 5 to 51 characters"))
    #expect(described.contains("timeZone: text"))
  }

  @Test(arguments: ["abcde", String(repeating: "x", count: 51), "Zoë 😀!"])
  func acceptsAUserNameOfFiveToFiftyOneCharacters(name: String) {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.send(
      .changeSettings(.init(settings: ["userName": .string(name)])),
      { $0.inFlight[1] = InFlightRequest(type: "changeSettings", since: at) },
      effects: [.storeSettings(server: "embedded", settings: ["userName": .string(name)])])
  }

  @Test func reportsTheFirstProblemInKeyOrder() {
    var t = ReducerTester.loggedIn()
    t.send(
      .changeSettings(
        .init(settings: ["theme": .bool(true), "micInput": .string("often"), "zzz": .bool(true)])),
      rejected: "setting 'micInput' takes true or false")
  }

  @Test func checksTheValuesBeforeTheLogin() {
    var t = ReducerTester()
    t.send(
      .changeSettings(.init(settings: ["speechRate": .string("fast")])),
      rejected: "setting 'speechRate' takes a number")
    t.send(
      .changeSettings(.init(settings: ["speechRate": .number(1)])),
      rejected: "log in first to change settings")
  }

  @Test func changeSettingsWithAnExpiredSessionIsRejectedAndEnded() {
    var t = ReducerTester.loggedIn(expiresAt: Fixture.t0.adding(milliseconds: -5))
    t.send(
      .changeSettings(.init(settings: ["theme": .string("dark")])),
      effects: [.logout(server: "embedded", reason: "session expired")],
      rejected:
        "the session of ada@example.org expired at \(Fixture.t0.adding(milliseconds: -5)); log in again"
    )
  }

  @Test func settingsChangedMergesIntoTheKnownSettings() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare {
      $0.settings = ["theme": .string("light"), "speechRate": .number(1)]
      $0.lastErrors = ["changeSettings": Fixture.error()]
    }
    let change: [String: SettingValue] = ["theme": .string("dark"), "micInput": .bool(true)]
    let asked = t.send(
      .changeSettings(.init(settings: change)),
      { $0.inFlight[1] = InFlightRequest(type: "changeSettings", since: at) },
      effects: [.storeSettings(server: "embedded", settings: change)])
    t.receive(.settingsChanged(.init(settings: change)), cause: asked) {
      $0.settings = ["theme": .string("dark"), "speechRate": .number(1), "micInput": .bool(true)]
      $0.inFlight = [:]
      $0.lastErrors = [:]
    }
  }

  @Test func syncSettingsAsksTheServerAndSupersedesAnOlderSync() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.send(
      .syncSettings,
      { $0.inFlight[1] = InFlightRequest(type: "syncSettings", since: at, key: "syncSettings") },
      effects: [.fetchSettings(server: "embedded")])
    t.send(
      .syncSettings,
      { $0.inFlight[2] = InFlightRequest(type: "syncSettings", since: at, key: "syncSettings") },
      effects: [.supersede(seq: 1), .fetchSettings(server: "embedded")])
  }

  @Test func syncSettingsNeedsAValidSession() {
    var t = ReducerTester()
    t.send(.syncSettings, rejected: "log in first to sync settings")
    t.prepare { $0.session = Fixture.session(expiresAt: Fixture.t0) }
    t.send(
      .syncSettings,
      effects: [.logout(server: "embedded", reason: "session expired")],
      rejected: "the session of ada@example.org expired at \(Fixture.t0); log in again")
  }

  @Test func settingsSyncedReplacesTheKnownSettings() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare { $0.settings = ["theme": .string("light"), "speechRate": .number(1)] }
    let asked = t.send(
      .syncSettings,
      { $0.inFlight[1] = InFlightRequest(type: "syncSettings", since: at, key: "syncSettings") },
      effects: [.fetchSettings(server: "embedded")])
    t.receive(.settingsSynced(.init(settings: ["prefLanguage": .string("de")])), cause: asked) {
      $0.settings = ["prefLanguage": .string("de")]
      $0.inFlight = [:]
    }
  }

  @Test func settingsResultsDoNotCompleteEachOthersRequests() {
    var t = ReducerTester.loggedIn()
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: "syncSettings", since: Fixture.t0, key: "syncSettings")
      $0.inFlight[2] = InFlightRequest(type: "changeSettings", since: Fixture.t0)
    }
    t.receive(.settingsChanged(.init(settings: ["theme": .string("dark")])), cause: 1) {
      $0.settings = ["theme": .string("dark")]
    }
    t.receive(.settingsSynced(.init(settings: [:])), cause: 2) { $0.settings = [:] }
  }
}
