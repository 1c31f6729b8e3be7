public import SusiDelivery
public import SusiPostgres
import Synchronization

/// Webhook deliveries shared by the nodes of a fleet: each subscriber's lease and cursor in one
/// row of the database the log is in, so exactly one node delivers a subscriber at a time and
/// another node goes on from its cursor when that node dies.
///
/// ```
/// CREATE TABLE susi_delivery_leases (log text, subscriber text, holder bigint,
///   expires bigint, delivered bigint, disabled text, disabled_at bigint,
///   PRIMARY KEY (log, subscriber))
/// ```
///
/// `expires` is in milliseconds since 1970 on the holder's clock: the nodes' clocks must agree
/// to well within a lease's duration (NTP does). Cursor saves and disabling are fenced: they
/// change the row only while this node holds the lease, so a node that lost it (it stalled past
/// the expiry and another node took over) cannot move the new holder's cursor.
public final class PostgresDeliveryLeases: DeliveryLeases, DeliveryCursorStore, Sendable {
  public let location: PostgresLogLocation
  /// This node's number (see `PostgresEventSink.node`).
  public let node: Int
  public let duration: Int64
  private let connection: Mutex<PostgresConnection?>
  /// The cursors as last read from or written to the database, by subscriber id.
  private let cached = Mutex<[String: DeliveryCursors.Cursor]>([:])

  /// Leases of node `node` on the log at `location`, each lasting `duration` milliseconds
  /// (15 seconds by default). Creates the table on first use.
  public init(location: PostgresLogLocation, node: Int, duration: Int64 = 15_000)
    throws(PostgresError)
  {
    self.location = location
    self.node = node
    self.duration = max(3, duration)
    let open = try PostgresConnection(location.database)
    // One node at a time creates the table (two concurrent CREATE ... IF NOT EXISTS can clash).
    try open.execute(
      """
      BEGIN;
      SELECT pg_advisory_xact_lock(\(PostgresEventLog.LockPurpose.schema.rawValue), -1);
      CREATE TABLE IF NOT EXISTS susi_delivery_leases (
        log text NOT NULL, subscriber text NOT NULL, holder bigint,
        expires bigint NOT NULL DEFAULT 0, delivered bigint, disabled text, disabled_at bigint,
        PRIMARY KEY (log, subscriber));
      COMMIT
      """)
    connection = Mutex(open)
  }

  public func hold(_ id: String, now: Int64) throws -> Bool {
    let taken = try run { open throws(PostgresError) in
      try open.execute(
        """
        INSERT INTO susi_delivery_leases AS lease (log, subscriber, holder, expires)
        VALUES ($1, $2, $3, $4)
        ON CONFLICT (log, subscriber) DO UPDATE SET holder = excluded.holder,
          expires = excluded.expires
        WHERE lease.holder IS NULL OR lease.holder = excluded.holder OR lease.expires <= $5
        RETURNING delivered, disabled, disabled_at
        """,
        [.text(location.table), .text(id), .int(node), .int(Int(now + duration)), .int(Int(now))])
    }
    if taken.count == 1 {
      remember(id, taken)
      return true
    }
    let row = try run { open throws(PostgresError) in
      try open.execute(
        "SELECT delivered, disabled, disabled_at FROM susi_delivery_leases "
          + "WHERE log = $1 AND subscriber = $2", [.text(location.table), .text(id)])
    }
    remember(id, row)
    return false
  }

  public func release(_ id: String) {
    _ = try? run { open throws(PostgresError) in
      try open.execute(
        "UPDATE susi_delivery_leases SET holder = NULL, expires = 0 "
          + "WHERE log = $1 AND subscriber = $2 AND holder = $3",
        [.text(location.table), .text(id), .int(node)])
    }
  }

  public func cursor(_ id: String) -> DeliveryCursors.Cursor? { cached.withLock { $0[id] } }

  public func save(_ id: String, delivered seq: Int) throws {
    try fenced(id, "delivered = $4", .int(seq))
    cached.withLock { all in
      var cursor = all[id] ?? DeliveryCursors.Cursor(delivered: seq)
      cursor.delivered = seq
      all[id] = cursor
    }
  }

  public func disable(_ id: String, reason: String, at seconds: Int64) throws {
    try fenced(id, "disabled = $4, disabled_at = \(seconds)", .text(reason))
    cached.withLock { all in
      var cursor = all[id] ?? DeliveryCursors.Cursor(delivered: 0)
      cursor.disabled = reason
      cursor.disabledAt = seconds
      all[id] = cursor
    }
  }

  public func enable(_ id: String) throws {
    try run { open throws(PostgresError) in
      try open.execute(
        "UPDATE susi_delivery_leases SET disabled = NULL, disabled_at = NULL "
          + "WHERE log = $1 AND subscriber = $2", [.text(location.table), .text(id)])
    }
    cached.withLock {
      $0[id]?.disabled = nil
      $0[id]?.disabledAt = nil
    }
  }

  public func remove(_ id: String) throws {
    try run { open throws(PostgresError) in
      try open.execute(
        "DELETE FROM susi_delivery_leases WHERE log = $1 AND subscriber = $2",
        [.text(location.table), .text(id)])
    }
    cached.withLock { $0[id] = nil }
  }

  /// Keeps the cursor: on a fleet, each node registers the same subscriber, and registering it on
  /// one more node must not reset the deliveries another node is making. Removing it deletes it.
  public func clearBeforeRegistering(_ id: String) throws {}

  /// Closes the connection.
  public func close() {
    connection.withLock { connection in
      connection?.close()
      connection = nil
    }
  }

  // MARK: Pieces

  /// Sets `assignment` (whose `$4` is `value`) on `id`'s row while this node holds its lease.
  private func fenced(_ id: String, _ assignment: String, _ value: PostgresValue) throws {
    let result = try run { open throws(PostgresError) in
      try open.execute(
        "UPDATE susi_delivery_leases SET \(assignment) "
          + "WHERE log = $1 AND subscriber = $2 AND holder = $3",
        [.text(location.table), .text(id), .int(node), value])
    }
    guard result.affected == 1 else {
      throw PostgresError(
        .query, "node \(node) no longer holds the delivery lease on subscriber '\(id)'")
    }
  }

  /// Keeps the cursor a row (`delivered, disabled, disabled_at`) shows; none when it has none.
  private func remember(_ id: String, _ result: PostgresResult) {
    cached.withLock { all in
      guard result.count == 1, let delivered = result.int(0, 0) else {
        all[id] = nil
        return
      }
      all[id] = DeliveryCursors.Cursor(
        delivered: delivered, disabled: result.text(0, 1),
        disabledAt: result.int(0, 2).map(Int64.init))
    }
  }

  /// Runs `body` on the connection, opening it again when it broke.
  @discardableResult
  private func run(_ body: (PostgresConnection) throws(PostgresError) -> PostgresResult)
    throws(PostgresError) -> PostgresResult
  {
    do {
      return try connection.withLock { connection throws(PostgresError) -> PostgresResult in
        if connection == nil || connection?.isHealthy == false {
          connection = try PostgresConnection(location.database)
        }
        guard let open = connection else { throw PostgresError(.closed, "no connection") }
        return try body(open)
      }
    } catch {
      connection.withLock { $0 = nil }
      throw error
    }
  }
}
