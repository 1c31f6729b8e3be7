// The rules for changing access. The reducer applies them to every access intent in the log;
// frontends run the same checks first, so that a refused request appends nothing.

/// Why an access change is refused.
public struct AccessProblem: Error, Equatable, Sendable, CustomStringConvertible {
  /// What kind of refusal, so a frontend can choose its answer (403, 404, 409, …).
  public enum Kind: String, Sendable {
    /// The acting key is unknown or revoked.
    case unauthorized
    /// The acting key lacks a privilege the change needs.
    case forbidden
    /// The group or key to change does not exist.
    case notFound
    /// The change contradicts what is there (the group exists, the key is already revoked).
    case conflict
    /// A name, id or label is malformed.
    case invalid
  }

  /// The kind of refusal.
  public var kind: Kind
  /// Why, for a person.
  public var message: String

  /// A refusal of `kind` saying `message`.
  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }
}

extension AccessControl {
  /// Why the access intent `action` cannot be applied; nil when it can, or when `action` is not
  /// an access intent.
  public func problem(_ action: Action) -> AccessProblem? {
    switch action {
    case .createAccessGroup(let p): problem(creating: p)
    case .grantPrivilege(let p): problem(granting: p)
    case .revokePrivilege(let p): problem(revoking: p)
    case .issueKey(let p): problem(issuing: p)
    case .revokeKey(let p): problem(revoking: p)
    default: nil
    }
  }

  func problem(creating p: Action.CreateAccessGroup) -> AccessProblem? {
    let held: Set<Privilege>
    switch actor(p.by, needing: Privilege.groupsManage) {
    case .failure(let problem): return problem
    case .success(let privileges): held = privileges
    }
    if let problem = Self.groupNameProblem(p.group) { return problem }
    guard groups[p.group] == nil else {
      return AccessProblem(.conflict, "group '\(p.group)' already exists")
    }
    let start = groups[Self.defaultGroup]?.privileges ?? []
    let missing = start.subtracting(held)
    guard missing.isEmpty else {
      return AccessProblem(
        .forbidden,
        "a new group starts with the privileges of '\(Self.defaultGroup)', and \(p.by) does not hold "
          + Self.list(missing))
    }
    return nil
  }

  func problem(granting p: Action.GrantPrivilege) -> AccessProblem? {
    problem(changing: p, granting: true)
  }

  func problem(revoking p: Action.RevokePrivilege) -> AccessProblem? {
    problem(changing: p, granting: false)
  }

  /// Why `p.by` cannot grant (or revoke) `p.privilege` to (from) `p.group`; nil when it can.
  private func problem(changing p: Action.PrivilegeChange, granting: Bool) -> AccessProblem? {
    let held: Set<Privilege>
    switch actor(p.by, needing: Privilege.groupsManage) {
    case .failure(let problem): return problem
    case .success(let privileges): held = privileges
    }
    guard !granting || Privilege.all.contains(p.privilege) else {
      return AccessProblem(.invalid, "no privilege is called '\(p.privilege)'")
    }
    guard let group = groups[p.group] else {
      return AccessProblem(.notFound, "no group is called '\(p.group)'")
    }
    guard p.group != Self.adminGroup else {
      return AccessProblem(.conflict, "the admin group always holds every privilege")
    }
    guard held.contains(p.privilege) else {
      return AccessProblem(
        .forbidden,
        "\(p.by) cannot \(granting ? "grant" : "revoke") \(p.privilege), which it does not hold")
    }
    guard group.privileges.contains(p.privilege) != granting else {
      return AccessProblem(
        .conflict,
        "group '\(p.group)' \(granting ? "already holds" : "does not hold") \(p.privilege)")
    }
    return nil
  }

  func problem(issuing p: Action.IssueKey) -> AccessProblem? {
    let held: Set<Privilege>
    switch actor(p.by, needing: Privilege.keysManage) {
    case .failure(let problem): return problem
    case .success(let privileges): held = privileges
    }
    guard Self.isKeyID(p.key) else {
      return AccessProblem(.invalid, "'\(p.key)' is not a key id (key_ and 16 hex digits)")
    }
    guard keys[p.key] == nil else { return AccessProblem(.conflict, "key \(p.key) already exists") }
    guard !p.groups.isEmpty else {
      return AccessProblem(.invalid, "a key needs at least one group")
    }
    guard Set(p.groups).count == p.groups.count else {
      return AccessProblem(.invalid, "a group is named twice")
    }
    var given = Set<Privilege>()
    for name in p.groups {
      guard let group = groups[name] else {
        return AccessProblem(.notFound, "no group is called '\(name)'")
      }
      given.formUnion(group.privileges)
    }
    let missing = given.subtracting(held)
    guard missing.isEmpty else {
      return AccessProblem(
        .forbidden,
        "\(p.by) cannot issue a key holding privileges it does not hold: \(Self.list(missing))")
    }
    if let label = p.label, let problem = Self.labelProblem(label) { return problem }
    return nil
  }

  func problem(revoking p: Action.RevokeKey) -> AccessProblem? {
    let held: Set<Privilege>
    switch actor(p.by, needing: Privilege.keysManage) {
    case .failure(let problem): return problem
    case .success(let privileges): held = privileges
    }
    guard let key = keys[p.key] else {
      return AccessProblem(.notFound, "no key is called '\(p.key)'")
    }
    guard key.revokedAt == nil else {
      return AccessProblem(.conflict, "key \(p.key) is already revoked")
    }
    let missing = (privileges(of: p.key) ?? []).subtracting(held)
    guard missing.isEmpty else {
      return AccessProblem(
        .forbidden,
        "\(p.by) cannot revoke a key that holds privileges it does not hold: \(Self.list(missing))")
    }
    return nil
  }

  /// The privileges of an active actor that holds `privilege`, or why it cannot act.
  private func actor(_ id: String, needing privilege: Privilege)
    -> Result<Set<Privilege>, AccessProblem>
  {
    guard let held = privileges(of: id) else {
      return .failure(AccessProblem(.unauthorized, "key \(id) is unknown or revoked"))
    }
    guard held.contains(privilege) else {
      return .failure(AccessProblem(.forbidden, "\(id) lacks the \(privilege) privilege"))
    }
    return .success(held)
  }

  private static func list(_ privileges: Set<Privilege>) -> String {
    privileges.map(\.rawValue).sorted().joined(separator: ", ")
  }

  /// Why `name` cannot name a group: 1–40 characters, a lower-case letter first, then lower-case
  /// letters, digits, `.`, `_` or `-`.
  public static func groupNameProblem(_ name: String) -> AccessProblem? {
    let bytes = Array(name.utf8)
    let valid =
      (1...40).contains(bytes.count) && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0])
      && bytes.allSatisfy { b in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
          || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
      }
    guard valid else {
      return AccessProblem(
        .invalid,
        "'\(name)' is not a group name: use 1 to 40 lower-case letters, digits, '.', '_' or '-', starting with a letter"
      )
    }
    return nil
  }

  /// Whether `id` has the form of a key id: `key_` and 16 lower-case hex digits.
  public static func isKeyID(_ id: String) -> Bool {
    let bytes = id.utf8
    guard bytes.count == 20, id.hasPrefix("key_") else { return false }
    return bytes.dropFirst(4).allSatisfy { b in
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(b)
    }
  }

  /// Why `label` cannot label a key: at most 100 characters, no control characters.
  public static func labelProblem(_ label: String) -> AccessProblem? {
    guard label.count <= 100,
      !label.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f })
    else {
      return AccessProblem(
        .invalid, "a key label has at most 100 characters and no control characters")
    }
    return nil
  }
}
