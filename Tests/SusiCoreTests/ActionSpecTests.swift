import SusiCore
import SusiJSON
import Testing

@Suite struct ActionSpecTests {
  @Test func everyTypeHasOneEntryInTheDocumentedOrder() {
    #expect(ActionSpec.every.map(\.type) == ActionType.allCases)
    for spec in ActionSpec.every {
      #expect(spec.type.spec.type == spec.type)
      #expect(!spec.summary.isEmpty, "\(spec.type)")
    }
  }

  @Test func intentsNameTheirFieldsAndPrivilegeAndResultsNeither() {
    for spec in ActionSpec.every {
      switch spec.kind {
      case .intent:
        #expect(spec.fields != nil, "\(spec.type)")
        #expect(spec.privilege != nil, "\(spec.type)")
      case .result:
        #expect(spec.fields == nil, "\(spec.type)")
        #expect(spec.privilege == nil, "\(spec.type)")
        #expect(!spec.needsLogin, "\(spec.type)")
      }
    }
  }

  /// The strict reader takes exactly the fields the table names, and the writer writes no
  /// other: a field added to one and not the other fails here.
  @Test(arguments: SampleActions.all.filter { $0.kind == .intent })
  func anIntentsWrittenFieldsAreTheTablesFields(action: Action) throws {
    guard case .object(let written) = action.payloadJSON else {
      Issue.record("\(action.type) does not write an object")
      return
    }
    let fields = try #require(action.type.spec.fields)
    #expect(Set(written.keys).isSubset(of: Set(fields)), "\(action.type): \(written.keys)")
    #expect(
      written.keys == fields.filter { written.keys.contains($0) }, "\(action.type) field order")
    var extra = written
    extra["typo"] = 1
    #expect(throws: ActionDecodingError.self) {
      try Action.decode(type: action.type.rawValue, payload: .object(extra), strict: true)
    }
    _ = try Action.decode(type: action.type.rawValue, payload: .object(written), strict: true)
  }

  /// The admin group holds every privilege, so a new intent's privilege changes the state every
  /// log replays to: a snapshot made before the intent existed lists one fewer, and must read as
  /// the state this version's replay gives (no reducer version to bump for a new intent).
  @Test func aSnapshotMadeBeforeAnIntentExistedGivesTheAdminGroupItsPrivilege() throws {
    var older = State()
    older.access.groups[AccessControl.adminGroup]?.privileges.remove(
      Privilege.forIntent(.recoverPassword))
    older.access.groups["ops"] = AccessGroup(privileges: [.stateRead])
    var w = JSONWriter()
    older.writeSnapshot(to: &w)
    guard case .object(let object) = try JSONParser.parse(w.bytes) else {
      Issue.record("a snapshot is an object")
      return
    }
    let readBack = try State(snapshot: FieldReader(object, path: "state"))
    var expected = older
    expected.access.groups[AccessControl.adminGroup] = AccessGroup(privileges: Set(Privilege.all))
    #expect(readBack == expected)
    #expect(readBack.access.groups["ops"]?.privileges == [.stateRead])
  }

  @Test func privilegesComeFromTheTable() {
    #expect(Privilege.forIntent(.submitRating) == "submitRating")
    #expect(Privilege.forIntent(.grantPrivilege) == .groupsManage)
    #expect(Privilege.forIntent(.revokeKey) == .keysManage)
    #expect(
      Privilege.accessIntents
        == [.createAccessGroup, .grantPrivilege, .revokePrivilege, .issueKey, .revokeKey])
    #expect(!Privilege.all.contains("issueKey"))
    #expect(Privilege.all.contains(.metricsRead))
  }

  @Test func theLoginOnlyIntentsAreTheTablesOnes() {
    let loginOnly = ActionType.intents.filter { $0.spec.needsLogin }
    #expect(loginOnly == [.submitRating, .loadUserRating, .changeSettings, .syncSettings])
  }

  @Test func supersedingKeysAreTheTypeAndTheSubject() {
    #expect(ActionType.loadGroups.spec.supersedingKey(about: nil) == "loadGroups")
    #expect(
      ActionType.loadSkill.spec.supersedingKey(about: "Games/Flip a coin")
        == "loadSkill:Games/Flip a coin")
    #expect(ActionType.submitRating.spec.supersedingKey(about: "Games/x") == nil)
  }

  // MARK: refusals

  /// Each refusal the reducer makes for want of a login, and one for a bad value, with the kind
  /// the chat branches on.
  static let refusals: [(State, Action, Action.ActionRejected.Kind)] = [
    (
      State(), .submitRating(.init(group: "Games", skill: "Flip a coin", stars: 4)),
      .needsLogin
    ),
    (State(), .syncSettings, .needsLogin),
    (State(), .logout, .notLoggedIn),
    (expiredSession(), .changeSettings(.init(settings: ["theme": .string("dark")])), .needsLogin),
    (State(), .submitRating(.init(group: "Games", skill: "Flip a coin", stars: 9)), .invalid),
  ]

  static func expiredSession() -> State {
    var state = State()
    state.session = Session(
      email: "ada@example.org", expiresAt: Timestamp(milliseconds: 0),
      since: Timestamp(milliseconds: 0))
    return state
  }

  @Test func aRefusalCarriesItsKindAndKeepsItThroughTheLog() throws {
    for (before, intent, kind) in Self.refusals {
      var state = before
      let event = Event(seq: 1, at: Timestamp(milliseconds: 1_000), origin: .cli, action: intent)
      let results = reduce(&state, event).results
      guard case .actionRejected(let refusal)? = results.first else {
        Issue.record("\(intent.type) was not refused: \(results)")
        continue
      }
      #expect(refusal.kind == kind, "\(intent.type): \(refusal.reason)")
      let logged = Action.actionRejected(refusal)
      let readBack = try Action.decode(type: "actionRejected", payload: logged.payloadJSON)
      #expect(readBack == logged, "\(intent.type)")
      #expect(logged.payloadJSON.object?.keys == ["reason"])
    }
  }

  @Test func aRefusalOfUnknownWordingReadsBackAsInvalid() {
    #expect(Action.ActionRejected(reason: "stars must be 1 to 5, not 9").kind == .invalid)
    #expect(Action.ActionRejected(reason: "log in firstly").kind == .invalid)
  }

  // MARK: request types

  @Test func requestTypesKeepTheirNamesUnknownOnesToo() {
    #expect(RequestType(rawValue: "loadSkills") == .intent(.loadSkills))
    #expect(RequestType(rawValue: "plannedAnswer") == .plannedAnswer)
    #expect(RequestType(rawValue: "fromTheFuture") == .other("fromTheFuture"))
    for name in ["loadSkills", "plannedAnswer", "fromTheFuture", ""] {
      #expect(RequestType(rawValue: name).rawValue == name)
    }
  }

  @Test func aSnapshotKeepsUnknownRequestTypesAndPrivileges() throws {
    var state = State()
    state.inFlight[3] = InFlightRequest(
      type: .other("fromTheFuture"), since: Timestamp(milliseconds: 5), key: "k")
    state.access.groups["ops"] = AccessGroup(privileges: ["future.privilege", .stateRead])
    var w = JSONWriter()
    state.writeSnapshot(to: &w)
    guard case .object(let object) = try JSONParser.parse(w.bytes) else {
      Issue.record("a snapshot is an object")
      return
    }
    let readBack = try State(snapshot: FieldReader(object, path: "state"))
    #expect(readBack == state)
    #expect(readBack.inFlight[3]?.type == .other("fromTheFuture"))
    #expect(readBack.access.groups["ops"]?.privileges.contains("future.privilege") == true)
    var again = JSONWriter()
    readBack.writeSnapshot(to: &again)
    #expect(again.bytes == w.bytes)
  }
}
