import SusiCore
import SusiPostgres
public import SusiStore
import Synchronization

/// Closes the requests of a node that died: the node that appended an intent runs its effects,
/// and if it dies before logging the result, nobody else would. Each node holds a lock of its
/// own (`PostgresEventSink.node`) for as long as it lives, and the log's owners table says which
/// node appended each intent. A sweep finds the requests in flight whose node no longer holds its
/// lock and logs `requestFailed {kind: "interrupted"}` for each (origin `store`), decided under
/// the append lock, so a result that node committed first, or another node's sweep, wins.
/// Nothing is re-sent: whether the request reached its server is unknown.
public final class PostgresTakeover: Sendable {
  public let location: PostgresLogLocation
  /// This node: its own requests are never taken over.
  public let node: Int
  private let connection: Mutex<PostgresConnection?>

  public init(location: PostgresLogLocation, node: Int) {
    self.location = location
    self.node = node
    connection = Mutex(nil)
  }

  /// Logs `requestFailed` for every request in flight in `store` whose node has died. Returns
  /// the seqs of the requests it closed.
  @discardableResult
  public func sweep(_ store: Store) async throws(PostgresLogError) -> [Int] {
    // The seq read first: an intent after it may not be applied here yet.
    let lastSeq = await store.lastSeq
    let inFlight = await store.state.inFlight.map(\.key)
    let orphans = try orphaned(
      inFlight, forgettingOwnersBelow: min(inFlight.min() ?? Int.max, lastSeq + 1))
    guard !orphans.isEmpty else { return [] }
    return await store.closeRequestsOfAStoppedNode(orphans)
  }

  /// Which of `seqs` were appended by a node other than this one that no longer holds its lock.
  /// First deletes the owners of the intents before `settled`: every one of them is settled.
  func orphaned(_ seqs: [Int], forgettingOwnersBelow settled: Int) throws(PostgresLogError)
    -> [Int]
  {
    do {
      return try connection.withLock { connection throws(PostgresError) -> [Int] in
        if connection == nil || connection?.isHealthy == false {
          connection = try PostgresConnection(location.database)
        }
        guard let open = connection else { return [] }
        try open.execute(
          "DELETE FROM susi_log_owners WHERE log = $1 AND seq < $2",
          [.text(location.table), .int(settled)])
        guard !seqs.isEmpty else { return [] }
        let list = seqs.map(String.init).joined(separator: ",")
        let owners = try open.execute(
          "SELECT seq, node FROM susi_log_owners WHERE log = $1 AND seq = ANY($2::bigint[]) "
            + "AND node <> $3",
          [.text(location.table), .text("{\(list)}"), .int(node)])
        var byNode: [Int: [Int]] = [:]
        for row in 0..<owners.count {
          guard let seq = owners.int(row, 0), let owner = owners.int(row, 1) else { continue }
          byNode[owner, default: []].append(seq)
        }
        var orphans: [Int] = []
        for (owner, seqs) in byNode {
          // A live node holds its lock: taking it succeeds only when that node is gone.
          let key = "\(PostgresEventLog.LockPurpose.node.rawValue), \(owner)"
          let taken = try open.execute("SELECT pg_try_advisory_lock(\(key))")
          guard taken.text(0, 0) == "t" else { continue }
          try open.execute("SELECT pg_advisory_unlock(\(key))")
          orphans += seqs
        }
        return orphans.sorted()
      }
    } catch {
      connection.withLock { $0 = nil }
      throw .database(error)
    }
  }

  /// Closes the connection.
  public func close() {
    connection.withLock { connection in
      connection?.close()
      connection = nil
    }
  }
}
