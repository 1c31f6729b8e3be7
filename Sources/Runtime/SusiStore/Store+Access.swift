public import SusiCore

// Following the access state: who may do what is decided by the log, and a running process
// learns of every change in it — its own and those other processes append — as the store
// applies it.

/// Called with the access state after an event that may have changed it, and that event (nil
/// for the first call, with the state as it was when following began).
public typealias AccessFollower =
  @Sendable (_ access: AccessControl, _ cause: PublishedEvent?) ->
  Void

extension Store {
  /// Calls `follower` at once with the current access state, then again after every access
  /// change the store applies (`createAccessGroup`, `grantPrivilege`, `revokePrivilege`,
  /// `issueKey`, `revokeKey`), whichever process logged it, inside the store's turn and before
  /// the event reaches any reader of `events(after:)`. `follower` must return quickly. Returns a
  /// token for `stopFollowingAccess`.
  @discardableResult
  public func followAccess(_ follower: @escaping AccessFollower) -> Int {
    let key = nextAccessFollower()
    accessFollowers[key] = follower
    follower(state.access, nil)
    return key
  }

  /// Stops calling the follower registered with `token`.
  public func stopFollowingAccess(_ token: Int) { accessFollowers[token] = nil }

  /// Tells the access followers about `published`, when it is an access change.
  func accessApplied(_ published: PublishedEvent) {
    guard !accessFollowers.isEmpty, published.event.action.changesAccess else { return }
    let access = state.access
    for follower in accessFollowers.values { follower(access, published) }
  }

  private func nextAccessFollower() -> Int {
    (accessFollowers.keys.max() ?? 0) + 1
  }
}

extension Action {
  /// Whether applying this action may change who may do what.
  public var changesAccess: Bool {
    switch self {
    case .createAccessGroup, .grantPrivilege, .revokePrivilege, .issueKey, .revokeKey: true
    default: false
    }
  }
}
