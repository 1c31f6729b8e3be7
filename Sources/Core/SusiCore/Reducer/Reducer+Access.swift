// Groups, privileges and keys. Each change is checked by `AccessControl`'s rules against the
// state the log has built so far, so replay reaches the same decisions; a refused change leaves
// everything as it was and comes back as `actionRejected`.

extension State {
  mutating func createAccessGroup(_ p: Action.CreateAccessGroup, _ event: Event) -> Reaction {
    if let problem = access.problem(creating: p) { return .rejected(problem.message) }
    let start = access.groups[AccessControl.defaultGroup]?.privileges ?? []
    access.groups[p.group] = AccessGroup(privileges: start)
    return []
  }

  mutating func grantPrivilege(_ p: Action.GrantPrivilege, _ event: Event) -> Reaction {
    if let problem = access.problem(granting: p) { return .rejected(problem.message) }
    access.groups[p.group]?.privileges.insert(p.privilege)
    return []
  }

  mutating func revokePrivilege(_ p: Action.RevokePrivilege, _ event: Event) -> Reaction {
    if let problem = access.problem(revoking: p) { return .rejected(problem.message) }
    access.groups[p.group]?.privileges.remove(p.privilege)
    return []
  }

  mutating func issueKey(_ p: Action.IssueKey, _ event: Event) -> Reaction {
    if let problem = access.problem(issuing: p) { return .rejected(problem.message) }
    access.keys[p.key] = AccessKey(
      groups: p.groups.sorted(), label: p.label, issuedBy: p.by, issuedAt: event.at)
    return []
  }

  mutating func revokeKey(_ p: Action.RevokeKey, _ event: Event) -> Reaction {
    if let problem = access.problem(revoking: p) { return .rejected(problem.message) }
    access.keys[p.key]?.revokedAt = event.at
    access.keys[p.key]?.revokedBy = p.by
    return []
  }
}
