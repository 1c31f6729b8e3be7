/// Who may do what through the webhook frontend: groups of privileges, and keys that belong to
/// groups. A key's privileges are the union over its groups; anything not granted is denied.
///
/// Every change arrives as an intent in the log (`createAccessGroup`, `grantPrivilege`,
/// `revokePrivilege`, `issueKey`, `revokeKey`), so replaying a log gives the same decisions.
/// Key secrets never appear here: the state knows a key's id and groups, the hash of its secret
/// lives in a keys file beside the log.
public struct AccessControl: Equatable, Sendable {
  /// Groups by name.
  public var groups: [String: AccessGroup]
  /// Keys by id, revoked ones included (they stay as a record of who could do what).
  public var keys: [String: AccessKey]

  /// The group new keys join when no group is named.
  public static let defaultGroup = "default"
  /// The group that holds every privilege, always.
  public static let adminGroup = "admin"
  /// The actor id of the person at the machine (`susi serve keys …`): holds every privilege.
  public static let localOperator = "local"

  /// What the default group holds at first: chatting and reading.
  public static let defaultPrivileges: Set<Privilege> = [
    Privilege.forIntent(.sendMessage), Privilege.forIntent(.search),
    Privilege.forIntent(.loadGroups), Privilege.forIntent(.loadSkills),
    Privilege.forIntent(.loadSkill), Privilege.stateRead, Privilege.eventsRead,
  ]

  /// The two built-in groups: `default` (chat and read) and `admin` (everything).
  public init() {
    groups = [
      Self.defaultGroup: AccessGroup(privileges: Self.defaultPrivileges),
      Self.adminGroup: AccessGroup(privileges: Set(Privilege.all)),
    ]
    keys = [:]
  }

  /// Access with exactly these groups and keys.
  public init(groups: [String: AccessGroup], keys: [String: AccessKey]) {
    self.groups = groups
    self.keys = keys
  }

  /// Access as every log starts: the two built-in groups, no keys.
  public static let initial = AccessControl()

  /// The privileges of an actor (a key id or `local`); nil when the key is unknown or revoked.
  public func privileges(of actor: String) -> Set<Privilege>? {
    if actor == Self.localOperator { return Set(Privilege.all) }
    guard let key = keys[actor], key.revokedAt == nil else { return nil }
    var union = Set<Privilege>()
    for group in key.groups { union.formUnion(groups[group]?.privileges ?? []) }
    return union
  }

  /// Whether `actor` is an active key (or the local operator) holding `privilege`.
  public func allows(_ actor: String, _ privilege: Privilege) -> Bool {
    privileges(of: actor)?.contains(privilege) ?? false
  }

  /// True when some key that is not revoked is in the admin group.
  public var hasActiveAdminKey: Bool {
    keys.values.contains { $0.revokedAt == nil && $0.groups.contains(Self.adminGroup) }
  }
}

/// A named set of privileges.
public struct AccessGroup: Equatable, Sendable {
  /// The privileges the group grants.
  public var privileges: Set<Privilege>
  /// A group granting `privileges`.
  public init(privileges: Set<Privilege>) { self.privileges = privileges }
}

/// A caller's key, as the state knows it: never its secret.
public struct AccessKey: Equatable, Sendable {
  /// The groups it belongs to, sorted.
  public var groups: [String]
  /// A note for people (`ci`, `alice's laptop`).
  public var label: String?
  /// The actor that issued it.
  public var issuedBy: String
  /// When it was issued.
  public var issuedAt: Timestamp
  /// When it stopped working; nil while it works.
  public var revokedAt: Timestamp?
  /// The actor that revoked it.
  public var revokedBy: String?

  /// A key record; see the properties.
  public init(
    groups: [String], label: String? = nil, issuedBy: String, issuedAt: Timestamp,
    revokedAt: Timestamp? = nil, revokedBy: String? = nil
  ) {
    self.groups = groups
    self.label = label
    self.issuedBy = issuedBy
    self.issuedAt = issuedAt
    self.revokedAt = revokedAt
    self.revokedBy = revokedBy
  }
}

/// A privilege: what a key may do. Each intent a caller may send is a privilege of the same name
/// (`sendMessage`, see `ActionSpec.privilege`); the others guard reading and administration. The
/// name is what the log and the state hold; a name this version does not know is kept as it is.
public struct Privilege: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  public let rawValue: String

  public init(rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { self.init(rawValue: value) }

  public var description: String { rawValue }

  public static func < (a: Privilege, b: Privilege) -> Bool { a.rawValue < b.rawValue }

  /// `GET /state`.
  public static let stateRead: Privilege = "state.read"
  /// `GET /events` and `GET /events/stream`.
  public static let eventsRead: Privilege = "events.read"
  /// `GET /metrics`.
  public static let metricsRead: Privilege = "metrics.read"
  /// Register and remove outbound subscribers.
  public static let subscribersManage: Privilege = "subscribers.manage"
  /// Issue and revoke keys.
  public static let keysManage: Privilege = "keys.manage"
  /// Create groups, grant and revoke privileges.
  public static let groupsManage: Privilege = "groups.manage"

  /// The intents that change access itself; they are guarded by `keys.manage` and
  /// `groups.manage`, not by privileges of their own.
  public static let accessIntents: Set<ActionType> = Set(
    ActionType.intents.filter { $0.spec.privilege?.rawValue != $0.rawValue })

  /// Every privilege there is: the intents callers may send, then the rest.
  public static let all: [Privilege] =
    ActionType.intents.filter { !accessIntents.contains($0) }.map(forIntent) + [
      stateRead, eventsRead, metricsRead, subscribersManage, keysManage, groupsManage,
    ]

  /// The privilege that allows sending the intent `type`.
  public static func forIntent(_ type: ActionType) -> Privilege {
    type.spec.privilege ?? Privilege(rawValue: type.rawValue)
  }
}

extension Collection<Privilege> {
  /// The names, sorted by their bytes (as the state's JSON lists them).
  public var sortedNames: [String] {
    map(\.rawValue).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }
}
