// Payloads of the intents that change who may do what (see `AccessControl`). Each carries `by`,
// the id of the acting key (or `local` for the person at the machine), which the frontend takes
// from the authenticated request, never from the caller's body.

extension Action {
  /// Create a group; it starts with the privileges of the `default` group.
  public struct CreateAccessGroup: Equatable, Sendable {
    public var by: String
    public var group: String
    public init(by: String, group: String) {
      self.by = by
      self.group = group
    }
  }

  /// One privilege of one group: what `grantPrivilege` adds and `revokePrivilege` takes away.
  public struct PrivilegeChange: Equatable, Sendable {
    public var by: String
    public var group: String
    public var privilege: Privilege
    public init(by: String, group: String, privilege: Privilege) {
      self.by = by
      self.group = group
      self.privilege = privilege
    }
  }

  /// Add a privilege to a group.
  public typealias GrantPrivilege = PrivilegeChange

  /// Take a privilege away from a group.
  public typealias RevokePrivilege = PrivilegeChange

  /// Record a new key. Only its id goes into the log; the hash of its secret is kept in the
  /// keys file beside the log.
  public struct IssueKey: Equatable, Sendable {
    public var by: String
    /// `key_` and 16 hex digits.
    public var key: String
    public var groups: [String]
    public var label: String?
    public init(by: String, key: String, groups: [String], label: String? = nil) {
      self.by = by
      self.key = key
      self.groups = groups
      self.label = label
    }
  }

  /// Stop a key from working.
  public struct RevokeKey: Equatable, Sendable {
    public var by: String
    public var key: String
    public init(by: String, key: String) {
      self.by = by
      self.key = key
    }
  }
}
