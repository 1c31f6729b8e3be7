public import SusiCore
public import SusiFiles
public import SusiStore

/// The access changes `susi serve` takes from its HTTP API and from its command line: keys
/// issued and revoked, groups created, privileges granted and revoked. Each is checked by the
/// access rules and appended to the log in one step, and the keys file is kept in step with
/// the log.
public struct AccessAdministration: Sendable {
  /// The store whose log records the changes.
  public let store: Store
  /// The hashes of the keys' secrets.
  public let keys: KeyFile

  /// Administration of `store`'s access, with key hashes kept in `keys`.
  public init(store: Store, keys: KeyFile) {
    self.store = store
    self.keys = keys
  }

  /// Why a change was not made. In every case nothing was appended.
  public enum Failure: Error, Sendable {
    /// The access rules refuse the change.
    case access(AccessProblem)
    /// The log accepts nothing more.
    case store(StoreError)
    /// The keys file could not be written.
    case keyFile(PrivateFile.Failure)
  }

  /// A key just issued.
  public struct IssuedKey: Sendable {
    /// The key's secret: show it once, to whoever asked for it.
    public var token: KeyToken
    /// The groups the key was issued in (the default group when none were asked for).
    public var groups: [String]
    /// The `issueKey` intent as appended.
    public var sent: SentAction
  }

  /// Issues a key in `groups` (the default group when empty), on behalf of key `by`.
  ///
  /// The key's hash is stored first, so a key the log knows is usable at once. A hash whose key
  /// the log refuses is inert (authentication needs both) and is removed again.
  public func issueKey(groups: [String], label: String?, by: String, origin: EventOrigin)
    async throws(Failure) -> IssuedKey
  {
    let token = KeyToken.generate()
    do {
      try keys.add(token)
    } catch {
      throw .keyFile(error)
    }
    let groups = groups.isEmpty ? [AccessControl.defaultGroup] : groups
    let action = Action.issueKey(
      .init(by: by, key: token.keyID, groups: groups, label: label))
    do {
      let sent = try await change(action, origin: origin)
      return IssuedKey(token: token, groups: groups, sent: sent)
    } catch {
      try? keys.remove(token.keyID)
      throw error
    }
  }

  /// Revokes key `id` on behalf of key `by`. Its hash is removed only once the log has the
  /// revocation: until then the key stays usable, as the log says it is.
  public func revokeKey(_ id: String, by: String, origin: EventOrigin) async throws(Failure)
    -> SentAction
  {
    let sent = try await change(.revokeKey(.init(by: by, key: id)), origin: origin)
    try? keys.remove(id)
    return sent
  }

  /// Appends an access change (a group created, a privilege granted or revoked) if the rules
  /// allow it.
  public func change(_ action: Action, origin: EventOrigin) async throws(Failure) -> SentAction {
    do {
      return try await store.sendChecked(action, origin: origin)
    } catch {
      switch error {
      case .access(let problem): throw .access(problem)
      case .store(let failure): throw .store(failure)
      case .busy: throw .store(.logFailed("the store is full"))
      }
    }
  }
}
