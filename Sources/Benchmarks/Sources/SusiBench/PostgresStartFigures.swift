// The start figures of `susi-bench postgres` (`--start-events=N`, 1,000,000 by default; 0 skips
// them): how long a node takes to start on a long database log, against a start on an empty one,
// in the same run on the same cluster. A start is what a node does before it serves: connect,
// load the newest snapshot from the database, replay the records after it, make the store.

import Foundation
import SusiApplication
import SusiClock
import SusiCommandLine
import SusiCore
import SusiEventLog
import SusiPostgres
import SusiPostgresLog
import SusiSamples
import SusiStore

extension PostgresBenchmark {
  func startFigures(_ base: String) async throws {
    let count = startEvents
    guard count > 0 else { return }
    let rounds = 15
    let fresh = try PostgresLogLocation(base + "&log=start_fresh")
    let long = try PostgresLogLocation(base + "&log=start_long")

    let clock = ContinuousClock()
    let built = try clock.measure { try insertRealistic(1...count, into: long) }
    report(
      String(
        format: "start: %d realistic events inserted into the database log in %.1f s", count,
        built.inSeconds))

    // The first start on it: no snapshot yet, so all of it is replayed; its clean stop writes
    // the snapshot later starts begin from.
    let full = try await clock.measure { try await Self.startAndStopWritingASnapshot(long) }
    report(
      String(
        format: "start on %d events, no snapshot (replays all, then writes one): %.3f s", count,
        full.inSeconds))

    // What the snapshot costs: its size, reading it from the database, and decoding it.
    let connection = try PostgresConnection(long.database)
    let snapshots = PostgresSnapshots(location: long)
    let newest = try snapshots.seqs(on: connection).first ?? 0
    let row = try connection.execute(
      "SELECT snapshot FROM susi_snapshots WHERE log = $1 AND seq = $2",
      [.text(long.table), .int(newest)], binaryResult: true)
    let bytes = row.bytes(0, 0) ?? []
    let fetch = try await best(rounds) {
      let began = ContinuousClock.now
      _ = try connection.execute(
        "SELECT snapshot FROM susi_snapshots WHERE log = $1 AND seq = $2",
        [.text(long.table), .int(newest)], binaryResult: true)
      return (ContinuousClock.now - began).inSeconds * 1000
    }
    let decode = try await best(rounds) {
      let began = ContinuousClock.now
      _ = try Snapshot(decoding: bytes)
      return (ContinuousClock.now - began).inSeconds * 1000
    }
    let state = try Snapshot(decoding: bytes).recovered.state
    let digest = try await best(rounds) {
      let began = ContinuousClock.now
      _ = Snapshot.digest(state)
      return (ContinuousClock.now - began).inSeconds * 1000
    }
    // What a start does that a start on an empty log does not: find, fetch, decode and check
    // the newest snapshot, and ask for the records after it.
    let found = try await best(rounds) {
      let began = ContinuousClock.now
      _ = try snapshots.newestValid(on: connection)
      return (ContinuousClock.now - began).inSeconds * 1000
    }
    var after = try Snapshot(decoding: bytes).recovered
    let tailRead = try await best(rounds) {
      let began = ContinuousClock.now
      try PostgresLogRecovery.replay(long, on: connection, into: &after)
      return (ContinuousClock.now - began).inSeconds * 1000
    }
    connection.close()
    report(
      String(
        format:
          "the snapshot at seq %d: %d bytes; read from the database %.2f ms, decoded %.2f ms "
          + "(the state digest, which format 1 had a start recompute: %.2f ms); found, read "
          + "and checked against the log %.2f ms; the (empty) tail after it asked for %.2f ms",
        newest, bytes.count, fetch, decode, digest, found, tailRead))

    _ = try await start(fresh)  // creates its tables
    let anchor = try await best(rounds) { try await start(fresh) }
    report(String(format: "start on an empty database log (anchor):           %8.2f ms", anchor))
    let onSnapshot = try await best(rounds) { try await start(long) }
    report(
      String(
        format: "start on %d events, snapshot at the end:        %8.2f ms  → %.2fx the anchor",
        count, onSnapshot, onSnapshot / anchor))
    // A node's start as `susi serve` makes it: the log as above, the built-in server (its skills
    // indexed by a first start in the same state folder), the store, the follower; stopped
    // (not timed) after each.
    let anchorNode = try await best(rounds) { try await startNode(fresh, state: "fresh") }
    let longNode = try await best(rounds) { try await startNode(long, state: "long") }
    report(
      String(
        format:
          "node start (SusiApp, built-in server), empty log: %8.2f ms; on %d events: %8.2f ms  → %.2fx",
        anchorNode, count, longNode, longNode / anchorNode))

    // The worst case between periodic snapshots: one interval less one event after the newest.
    let tail = SnapshotKeeper.defaultInterval - 1
    try insertRealistic((count + 1)...(count + tail), into: long)
    let onTail = try await best(rounds) { try await start(long) }
    report(
      String(
        format: "start on %d events, snapshot %d events back:   %8.2f ms  → %.2fx the anchor",
        count + tail, tail, onTail, onTail / anchor))
    let tailNode = try await best(rounds) {
      try await startNode(long, state: "long", droppingSnapshotsAfter: count)
    }
    report(
      String(
        format: "node start on %d events, snapshot %d events back:  %8.2f ms  → %.2fx",
        count + tail, tail, tailNode, tailNode / anchorNode))
  }

  /// A start on `location` that replays what no snapshot covers, then a clean stop, which
  /// writes the snapshot at the log's end.
  static func startAndStopWritingASnapshot(_ location: PostgresLogLocation) async throws {
    let node = try PostgresLogRecovery.open(location)
    let store = Store(
      sink: node.sink, runner: NullStartRunner(), clock: SystemTimeSource(),
      recovered: node.recovered)
    await store.keepSnapshots(node.snapshots)
    await store.close()
    await store.finishSnapshots()
  }

  /// One start on `location`: open, load the snapshot, replay the rest, make the store; then
  /// stopped (not timed) without writing a snapshot. Milliseconds.
  func start(_ location: PostgresLogLocation) async throws -> Double {
    let began = ContinuousClock.now
    let node = try PostgresLogRecovery.open(location)
    let store = Store(
      sink: node.sink, runner: NullStartRunner(), clock: SystemTimeSource(),
      recovered: node.recovered)
    let took = (ContinuousClock.now - began).inSeconds * 1000
    await store.close()
    return took
  }

  /// One start of a node on `location` with the state folder `state`; milliseconds. With
  /// `droppingSnapshotsAfter`, the snapshot its clean stop wrote is deleted again, so the next
  /// start has the same tail to replay.
  private func startNode(
    _ location: PostgresLogLocation, state: String, droppingSnapshotsAfter: Int? = nil
  ) async throws -> Double {
    let options = CommonOptions(
      log: base(location), stateDirectory: folder + "/node-" + state, fsync: "batch")
    let environment = ["SUSI_EMBEDDED_PORT": "0", "HOME": folder]
    if !FileManager.default.fileExists(atPath: folder + "/node-" + state) {
      let first = try await SusiApp.start(options, origin: .webhook, environment: environment)
      await first.stop()
    }
    let began = ContinuousClock.now
    let app = try await SusiApp.start(options, origin: .webhook, environment: environment)
    let took = (ContinuousClock.now - began).inSeconds * 1000
    await app.stop()
    if let last = droppingSnapshotsAfter {
      let connection = try PostgresConnection(location.database)
      defer { connection.close() }
      try connection.execute(
        "DELETE FROM susi_snapshots WHERE log = $1 AND seq > $2",
        [.text(location.table), .int(last)])
    }
    return took
  }

  /// The URI of `location` as given to `--log`.
  private func base(_ location: PostgresLogLocation) -> String {
    "postgresql:///bench?host=\(folder)&user=susi&log=\(location.table)"
  }

  private func best(_ rounds: Int, _ body: () async throws -> Double) async throws -> Double {
    var best = Double.infinity
    for _ in 0..<rounds { best = min(best, try await body()) }
    return best
  }

  /// Inserts the realistic events with these seqs, as the log's rows (the lines a file log
  /// holds), 2,000 rows a statement, 50,000 a transaction.
  func insertRealistic(_ seqs: ClosedRange<Int>, into location: PostgresLogLocation)
    throws
  {
    let connection = try PostgresEventLog.connect(location)
    defer { connection.close() }
    var seq = seqs.lowerBound
    try connection.execute("BEGIN")
    while seq <= seqs.upperBound {
      let last = min(seq + 1999, seqs.upperBound)
      var sql = "INSERT INTO \(location.table) (seq, at, origin, type, line) VALUES "
      var values: [PostgresValue] = []
      for n in seq...last {
        let event = RealisticEvents.event(seq: n)
        let p = (n - seq) * 5
        sql += n == seq ? "" : ", "
        sql += "($\(p + 1), $\(p + 2)::timestamptz, $\(p + 3), $\(p + 4), $\(p + 5))"
        values += [
          .int(n), .text(event.at.rfc3339), .text(event.origin.rawValue),
          .text(event.action.type.rawValue), .bytes(EventLogWriter.line(for: event.encoded())),
        ]
      }
      try connection.execute(sql, values)
      if (last - seqs.lowerBound + 1) % 50_000 == 0 {
        try connection.execute("COMMIT; BEGIN")
      }
      seq = last + 1
    }
    try connection.execute("COMMIT")
  }
}

/// Performs no effect: a start runs none.
final class NullStartRunner: EffectsRunner {
  func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery) {}
  func waitUntilIdle(timeout: Double) async -> Bool { true }
  func shutdown() async {}
}

extension Duration {
  fileprivate var inSeconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
