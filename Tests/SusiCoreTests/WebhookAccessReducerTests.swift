import SusiCore
import SusiCoreTesting
import SusiJSON
import Testing

/// The access-control intents in the reducer: each change stated exactly, refusals change nothing.
@Suite struct WebhookAccessReducerTests {
  static let admin = "key_00000000000000a1"
  static let chat = "key_00000000000000c1"
  static let ops = "key_00000000000000e1"

  /// A tester whose state has an admin key issued by the local operator.
  func testerWithAdmin() -> ReducerTester {
    var t = ReducerTester()
    t.send(
      .issueKey(.init(by: "local", key: Self.admin, groups: ["admin"], label: "boot")),
      {
        $0.access.keys[Self.admin] = AccessKey(
          groups: ["admin"], label: "boot", issuedBy: "local", issuedAt: ReducerTester.epoch)
      }, effects: [])
    return t
  }

  @Test func startsWithDefaultAndAdminGroups() {
    let access = AccessControl()
    #expect(access.groups.keys.sorted() == ["admin", "default"])
    #expect(access.groups["admin"]?.privileges == Set(Privilege.all))
    #expect(
      access.groups["default"]?.privileges == [
        "sendMessage", "search", "loadGroups", "loadSkills", "loadSkill", "state.read",
        "events.read",
      ])
    #expect(access.keys.isEmpty)
  }

  @Test func privilegesNameEveryNonAccessIntentAndTheReadAndManageRights() {
    #expect(Privilege.all.contains("submitRating"))
    #expect(Privilege.all.contains("keys.manage"))
    #expect(!Privilege.all.contains("issueKey"))
    #expect(Privilege.forIntent(.issueKey) == "keys.manage")
    #expect(Privilege.forIntent(.grantPrivilege) == "groups.manage")
    #expect(Privilege.forIntent(.sendMessage) == "sendMessage")
  }

  @Test func adminCreatesGroupStartingFromDefaultPrivileges() {
    var t = testerWithAdmin()
    t.send(
      .createAccessGroup(.init(by: Self.admin, group: "ops")),
      {
        $0.access.groups["ops"] = AccessGroup(privileges: AccessControl.defaultPrivileges)
      }, effects: [])
  }

  @Test func grantAndRevokeChangeTheGroup() {
    var t = testerWithAdmin()
    t.send(
      .grantPrivilege(.init(by: Self.admin, group: "default", privilege: "submitRating")),
      {
        $0.access.groups["default"]?.privileges.insert("submitRating")
      }, effects: [])
    t.send(
      .revokePrivilege(.init(by: Self.admin, group: "default", privilege: "search")),
      {
        $0.access.groups["default"]?.privileges.remove("search")
      }, effects: [])
  }

  @Test func keyPrivilegesAreTheUnionOverItsGroups() {
    var t = testerWithAdmin()
    t.send(
      .createAccessGroup(.init(by: Self.admin, group: "raters")),
      {
        $0.access.groups["raters"] = AccessGroup(privileges: AccessControl.defaultPrivileges)
      }, effects: [])
    t.send(
      .grantPrivilege(.init(by: Self.admin, group: "raters", privilege: "submitRating")),
      {
        $0.access.groups["raters"]?.privileges.insert("submitRating")
      }, effects: [])
    t.send(
      .revokePrivilege(.init(by: Self.admin, group: "raters", privilege: "search")),
      {
        $0.access.groups["raters"]?.privileges.remove("search")
      }, effects: [])
    t.send(
      .issueKey(.init(by: Self.admin, key: Self.ops, groups: ["raters", "default"])),
      {
        $0.access.keys[Self.ops] = AccessKey(
          groups: ["default", "raters"], issuedBy: Self.admin, issuedAt: ReducerTester.epoch)
      }, effects: [])
    let privileges = t.state.access.privileges(of: Self.ops)
    #expect(privileges == AccessControl.defaultPrivileges.union(["submitRating"]))
    #expect(!t.state.access.allows(Self.ops, "changeSettings"))
  }

  @Test func revokedKeyHasNoPrivileges() {
    var t = testerWithAdmin()
    t.send(
      .issueKey(.init(by: Self.admin, key: Self.chat, groups: ["default"])),
      {
        $0.access.keys[Self.chat] = AccessKey(
          groups: ["default"], issuedBy: Self.admin, issuedAt: ReducerTester.epoch)
      }, effects: [])
    t.advance(by: 1000)
    t.send(
      .revokeKey(.init(by: Self.admin, key: Self.chat)),
      {
        $0.access.keys[Self.chat]?.revokedAt = ReducerTester.epoch.adding(milliseconds: 1000)
        $0.access.keys[Self.chat]?.revokedBy = Self.admin
      }, effects: [])
    #expect(t.state.access.privileges(of: Self.chat) == nil)
    #expect(!t.state.access.allows(Self.chat, "sendMessage"))
  }

  @Test func nonAdminCannotCreateGroupsOrGrant() {
    var t = testerWithAdmin()
    t.send(
      .issueKey(.init(by: Self.admin, key: Self.chat, groups: ["default"])),
      {
        $0.access.keys[Self.chat] = AccessKey(
          groups: ["default"], issuedBy: Self.admin, issuedAt: ReducerTester.epoch)
      }, effects: [])
    t.send(
      .createAccessGroup(.init(by: Self.chat, group: "mine")),
      rejected: "\(Self.chat) lacks the groups.manage privilege")
    t.send(
      .grantPrivilege(.init(by: Self.chat, group: "default", privilege: "sendMessage")),
      rejected: "\(Self.chat) lacks the groups.manage privilege")
    t.send(
      .issueKey(.init(by: Self.chat, key: Self.ops, groups: ["default"])),
      rejected: "\(Self.chat) lacks the keys.manage privilege")
    t.send(
      .revokeKey(.init(by: Self.chat, key: Self.admin)),
      rejected: "\(Self.chat) lacks the keys.manage privilege")
  }

  @Test func keyCannotGrantAboveWhatItHolds() {
    var t = testerWithAdmin()
    // A group that may manage groups and keys but not rate.
    t.send(
      .createAccessGroup(.init(by: Self.admin, group: "managers")),
      {
        $0.access.groups["managers"] = AccessGroup(privileges: AccessControl.defaultPrivileges)
      }, effects: [])
    t.send(
      .grantPrivilege(.init(by: Self.admin, group: "managers", privilege: "groups.manage")),
      {
        $0.access.groups["managers"]?.privileges.insert("groups.manage")
      }, effects: [])
    t.send(
      .grantPrivilege(.init(by: Self.admin, group: "managers", privilege: "keys.manage")),
      {
        $0.access.groups["managers"]?.privileges.insert("keys.manage")
      }, effects: [])
    t.send(
      .issueKey(.init(by: Self.admin, key: Self.ops, groups: ["managers"])),
      {
        $0.access.keys[Self.ops] = AccessKey(
          groups: ["managers"], issuedBy: Self.admin, issuedAt: ReducerTester.epoch)
      }, effects: [])

    t.send(
      .grantPrivilege(.init(by: Self.ops, group: "managers", privilege: "submitRating")),
      rejected: "\(Self.ops) cannot grant submitRating, which it does not hold")
    t.send(
      .issueKey(.init(by: Self.ops, key: Self.chat, groups: ["admin"])),
      rejected: "\(Self.ops) cannot issue a key holding privileges it does not hold: "
        + Set(Privilege.all).subtracting(t.state.access.privileges(of: Self.ops)!)
        .map(\.rawValue).sorted().joined(separator: ", "))
    t.send(
      .revokeKey(.init(by: Self.ops, key: Self.admin)),
      rejected: "\(Self.ops) cannot revoke a key that holds privileges it does not hold: "
        + Set(Privilege.all).subtracting(t.state.access.privileges(of: Self.ops)!)
        .map(\.rawValue).sorted().joined(separator: ", "))
    // What it holds, it may hand on.
    t.send(
      .issueKey(.init(by: Self.ops, key: Self.chat, groups: ["default"])),
      {
        $0.access.keys[Self.chat] = AccessKey(
          groups: ["default"], issuedBy: Self.ops, issuedAt: ReducerTester.epoch)
      }, effects: [])
  }

  @Test func refusesMalformedAndConflictingChanges() {
    var t = testerWithAdmin()
    t.send(
      .createAccessGroup(.init(by: Self.admin, group: "Bad Name")),
      rejected:
        "'Bad Name' is not a group name: use 1 to 40 lower-case letters, digits, '.', '_' or '-', starting with a letter"
    )
    t.send(
      .createAccessGroup(.init(by: Self.admin, group: "default")),
      rejected: "group 'default' already exists")
    t.send(
      .grantPrivilege(.init(by: Self.admin, group: "default", privilege: "fly")),
      rejected: "no privilege is called 'fly'")
    t.send(
      .grantPrivilege(.init(by: Self.admin, group: "nobody", privilege: "search")),
      rejected: "no group is called 'nobody'")
    t.send(
      .grantPrivilege(.init(by: Self.admin, group: "default", privilege: "search")),
      rejected: "group 'default' already holds search")
    t.send(
      .revokePrivilege(.init(by: Self.admin, group: "admin", privilege: "search")),
      rejected: "the admin group always holds every privilege")
    t.send(
      .issueKey(.init(by: Self.admin, key: "key_short", groups: ["default"])),
      rejected: "'key_short' is not a key id (key_ and 16 hex digits)")
    t.send(
      .issueKey(.init(by: Self.admin, key: Self.admin, groups: ["default"])),
      rejected: "key \(Self.admin) already exists")
    t.send(
      .issueKey(.init(by: Self.admin, key: Self.chat, groups: [])),
      rejected: "a key needs at least one group")
    t.send(
      .revokeKey(.init(by: Self.admin, key: Self.chat)),
      rejected: "no key is called '\(Self.chat)'")
    t.send(
      .issueKey(.init(by: "key_ffffffffffffffff", key: Self.chat, groups: ["default"])),
      rejected: "key key_ffffffffffffffff is unknown or revoked")
  }

  @Test func groupChangesReplayToTheSameDecisions() throws {
    // A live run: issue, create, grant, revoke, a refused grant.
    let actions: [Action] = [
      .issueKey(.init(by: "local", key: Self.admin, groups: ["admin"])),
      .createAccessGroup(.init(by: Self.admin, group: "raters")),
      .grantPrivilege(.init(by: Self.admin, group: "raters", privilege: "submitRating")),
      .issueKey(.init(by: Self.admin, key: Self.ops, groups: ["raters"])),
      .grantPrivilege(.init(by: Self.ops, group: "raters", privilege: "changeSettings")),
      .revokePrivilege(.init(by: Self.admin, group: "raters", privilege: "search")),
      .issueKey(.init(by: Self.admin, key: Self.chat, groups: ["default"])),
      .revokeKey(.init(by: Self.admin, key: Self.chat)),
    ]
    var live = State()
    var lines: [[UInt8]] = []
    for (i, action) in actions.enumerated() {
      let event = Event(seq: i + 1, at: ReducerTester.epoch, origin: .webhook, action: action)
      _ = reduce(&live, event)
      lines.append(event.encoded())
    }
    // Replaying the encoded log gives the same state and the same answers.
    var replayed = State()
    for line in lines { _ = reduce(&replayed, try Event.decode(line)) }
    #expect(replayed == live)
    for key in [Self.admin, Self.ops, Self.chat, "key_0000000000000000"] {
      for privilege in Privilege.all {
        #expect(replayed.access.allows(key, privilege) == live.access.allows(key, privilege))
      }
    }
    #expect(replayed.access.allows(Self.ops, "submitRating"))
    #expect(!replayed.access.allows(Self.ops, "changeSettings"))
    #expect(!replayed.access.allows(Self.ops, "search"))
    #expect(!replayed.access.allows(Self.chat, "sendMessage"))
  }

  @Test func accessIntentsRoundTripThroughTheCodecAndRefuseUnknownFields() throws {
    let actions: [Action] = [
      .createAccessGroup(.init(by: Self.admin, group: "ops")),
      .grantPrivilege(.init(by: Self.admin, group: "ops", privilege: "search")),
      .revokePrivilege(.init(by: Self.admin, group: "ops", privilege: "search")),
      .issueKey(.init(by: Self.admin, key: Self.ops, groups: ["ops"], label: "ci")),
      .revokeKey(.init(by: Self.admin, key: Self.ops)),
    ]
    for action in actions {
      #expect(action.kind == .intent)
      let decoded = try Action.decode(
        type: action.type.rawValue, payload: action.payloadJSON, strict: true)
      #expect(decoded == action)
    }
    #expect(throws: ActionDecodingError.self) {
      try Action.decode(
        type: "revokeKey", payload: ["by": "x", "key": "y", "extra": 1], strict: true)
    }
  }

  @Test func stateJSONShowsAccessWithoutSecrets() {
    let t = testerWithAdmin()
    let access = t.state.json["access"]
    #expect(access?["keys"]?[Self.admin]?["groups"] == ["admin"])
    #expect(access?["keys"]?[Self.admin]?["issuedBy"] == "local")
    #expect(
      access?["groups"]?["default"]?["privileges"]?.array?.count
        == AccessControl.defaultPrivileges.count)
  }
}
