public import SusiCore
public import SusiHTTPTypes
public import SusiStore
import Synchronization

/// Who is calling, once their key checked out.
public struct Caller: Sendable, Equatable {
  /// The key id; it goes into access intents as `by`.
  public var keyID: String
  /// The union of the privileges of the key's groups.
  public var privileges: Set<Privilege>

  /// A caller with the key `keyID` and its privileges.
  public init(keyID: String, privileges: Set<Privilege>) {
    self.keyID = keyID
    self.privileges = privileges
  }

  /// Whether the caller holds `privilege`.
  public func holds(_ privilege: Privilege) -> Bool { privileges.contains(privilege) }
}

/// Why a caller was not let in, for a person; it never says which check failed.
public struct AccessRefused: Error, Equatable, Sendable {
  public var message: String
}

/// Checks callers' keys: the token's hash against the keys file, the key's groups and
/// privileges against the access state the log has built.
///
/// It follows the store's access state (`Store.followAccess`): every access change the store
/// applies, whether this process logged it or another process sharing the log did (`susi serve
/// keys revoke` in a terminal), replaces the gate's view before any reader of the log sees the
/// change. It keeps that view with each key's privileges worked out, so a request is checked
/// without waiting for the store. When another process issues or revokes a key, the keys file
/// (which that process rewrote) is read again.
public final class AccessGate: Sendable {
  private let keys: KeyFile
  private let snapshot: Mutex<Snapshot>

  struct Snapshot {
    var access: AccessControl
    /// Privileges of every active key.
    var privileges: [String: Set<Privilege>]

    init(_ access: AccessControl) {
      self.access = access
      var privileges: [String: Set<Privilege>] = [:]
      for id in access.keys.keys {
        if let held = access.privileges(of: id) { privileges[id] = held }
      }
      self.privileges = privileges
    }
  }

  /// A gate checking tokens against `keys` and deciding by `access`, fixed: for tests of the
  /// gate itself. A running frontend uses `following(_:keys:)`.
  init(keys: KeyFile, access: AccessControl) {
    self.keys = keys
    self.snapshot = Mutex(Snapshot(access))
  }

  /// A gate checking tokens against `keys` and deciding by `store`'s access state as it is now
  /// and as it changes, for as long as the store runs.
  public static func following(_ store: Store, keys: KeyFile) async -> AccessGate {
    let gate = AccessGate(keys: keys, access: await store.state.access)
    // Held strongly (the gate holds nothing of the store's): a weak reference would give the
    // gate a side table, and the retains every request takes of it the runtime's slow path.
    await store.followAccess { access, cause in gate.applied(access, cause) }
    return gate
  }

  /// The key file the gate checks against.
  public var keyFile: KeyFile { keys }

  /// The access state the gate decides by.
  public var access: AccessControl { snapshot.withLock { $0.access } }

  /// Takes the access state after `cause` was applied.
  private func applied(_ access: AccessControl, _ cause: PublishedEvent?) {
    if let cause, cause.byAnotherProcess {
      switch cause.event.action {
      case .issueKey, .revokeKey:
        // The other process wrote the key's hash before logging the issue, and removes it
        // after logging the revocation: read the file again, and forget every revoked key's
        // hash whether or not it is gone from the file yet.
        let revoked = Set(access.keys.filter { $0.value.revokedAt != nil }.map(\.key))
        keys.reload(forgetting: revoked)
      default:
        break
      }
    }
    let next = Snapshot(access)
    snapshot.withLock { $0 = next }
  }

  /// Whether the key is active and holds `privilege` now.
  public func allows(_ keyID: String, _ privilege: Privilege) -> Bool {
    snapshot.withLock { $0.privileges[keyID]?.contains(privilege) ?? false }
  }

  /// The caller holding the key `keyID` now, or nil when the key is unknown or revoked.
  public func caller(keyID: String) -> Caller? {
    snapshot.withLock { $0.privileges[keyID] }.map { Caller(keyID: keyID, privileges: $0) }
  }

  /// The caller behind the request's `Authorization: Bearer …`; refused when there is no such
  /// header, the token is malformed, unknown, does not match, or its key is revoked. The
  /// message does not say which, so probing learns nothing.
  public func authenticate(_ headers: HTTPHeaders) throws(AccessRefused) -> Caller {
    guard var value = headers["Authorization"] else {
      throw AccessRefused(message: "send a key as Authorization: Bearer <key>")
    }
    // The header's bytes are read where they are: no copy of the token, no string made of it.
    let found = value.withUTF8 { bytes -> Result<Caller, AccessRefused> in
      let scheme = "bearer ".utf8
      guard bytes.count > scheme.count,
        zip(bytes, scheme).allSatisfy({ $1 == 0x20 ? $0 == 0x20 : $0 | 0x20 == $1 })
      else {
        return .failure(AccessRefused(message: "send a key as Authorization: Bearer <key>"))
      }
      var start = scheme.count
      var end = bytes.count
      while start < end && bytes[start] == 0x20 { start += 1 }
      while end > start && bytes[end - 1] == 0x20 { end -= 1 }
      let token = UnsafeBufferPointer(rebasing: bytes[start..<end])
      guard let keyID = KeyToken.keyID(of: token), keys.matches(keyID: keyID, token: token),
        let privileges = snapshot.withLock({ $0.privileges[keyID] })
      else {
        return .failure(AccessRefused(message: "the key is unknown or revoked"))
      }
      return .success(Caller(keyID: keyID, privileges: privileges))
    }
    return try found.get()
  }
}
