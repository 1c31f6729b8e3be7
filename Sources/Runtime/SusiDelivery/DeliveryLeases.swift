/// Where the subscribers' cursors are kept: a file beside the log (`DeliveryCursors`), or a
/// database every node of a fleet shares.
public protocol DeliveryCursorStore: Sendable {
  /// The cursor of subscriber `id`, if it has one.
  func cursor(_ id: String) -> DeliveryCursors.Cursor?
  /// Records that everything up to `seq` is done for `id`.
  func save(_ id: String, delivered seq: Int) throws
  /// Stops deliveries to `id` for good (until `enable`).
  func disable(_ id: String, reason: String, at seconds: Int64) throws
  /// Lets deliveries to `id` go on from its cursor.
  func enable(_ id: String) throws
  /// Forgets the cursor of `id`.
  func remove(_ id: String) throws
  /// Clears what a subscriber of that id removed earlier left, before `id` is registered.
  func clearBeforeRegistering(_ id: String) throws
}

extension DeliveryCursorStore {
  /// Forgets the cursor (`remove`).
  public func clearBeforeRegistering(_ id: String) throws { try remove(id) }
}

extension DeliveryCursors: DeliveryCursorStore {}

/// How the nodes of a fleet agree which of them delivers each subscriber: a lease per
/// subscriber, held by one node until it expires. The holder renews it while it delivers; when
/// the holder dies its lease runs out and another node takes it, continuing from the cursor the
/// holder saved (so at least once, in order). Without leases (a file log, one node) every
/// subscriber is delivered by the one service there is.
public protocol DeliveryLeases: Sendable {
  /// How long a lease lasts without renewal, in milliseconds. Holders renew it every third of
  /// that; a dead holder's subscriber waits at most this long for another node.
  var duration: Int64 { get }
  /// Takes the lease on subscriber `id` for this node, or renews it, until `now + duration`
  /// (`now` in milliseconds since 1970). True when this node holds it; false when another
  /// node's lease has not expired yet. Throws when the leases cannot be reached: the caller
  /// must then stop delivering, as its lease may lapse.
  func hold(_ id: String, now: Int64) throws -> Bool
  /// Gives up this node's lease on `id` (a clean stop) so another node can take it at once.
  func release(_ id: String)
}
