// The start figures of `susi-bench postgres` (`--start-events=N`, 1,000,000 by default; 0 skips
// them): how long a node takes to start on a long database log, against a start on an empty one,
// in the same run on the same cluster. A start is what a node does before it serves: connect,
// load the newest snapshot from the database, replay the records after it, make the store.

import Foundation
import SusiClock
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
    let rounds = 5
    let fresh = try PostgresLogLocation(base + "&log=start_fresh")
    let long = try PostgresLogLocation(base + "&log=start_long")

    let clock = ContinuousClock()
    let built = try clock.measure { try insertRealistic(1...count, into: long) }
    show(
      String(
        format: "start: %d realistic events inserted into the database log in %.1f s", count,
        built.inSeconds))

    // The first start on it: no snapshot yet, so all of it is replayed; its clean stop writes
    // the snapshot later starts begin from.
    let full = try await clock.measure {
      let node = try PostgresLogRecovery.open(long)
      let store = Store(
        sink: node.sink, runner: NullStartRunner(), clock: SystemTimeSource(),
        recovered: node.recovered)
      await store.keepSnapshots(node.snapshots)
      await store.close()
      await store.finishSnapshots()
    }
    show(
      String(
        format: "start on %d events, no snapshot (replays all, then writes one): %.3f s", count,
        full.inSeconds))

    _ = try await start(fresh)  // creates its tables
    let anchor = try await best(rounds) { try await start(fresh) }
    show(String(format: "start on an empty database log (anchor):           %8.2f ms", anchor))
    let onSnapshot = try await best(rounds) { try await start(long) }
    show(
      String(
        format: "start on %d events, snapshot at the end:        %8.2f ms  → %.2fx the anchor",
        count, onSnapshot, onSnapshot / anchor))
    // The worst case between periodic snapshots: one interval less one event after the newest.
    let tail = SnapshotKeeper.defaultInterval - 1
    try insertRealistic((count + 1)...(count + tail), into: long)
    let onTail = try await best(rounds) { try await start(long) }
    show(
      String(
        format: "start on %d events, snapshot %d events back:   %8.2f ms  → %.2fx the anchor",
        count + tail, tail, onTail, onTail / anchor))
  }

  /// One start on `location`: open, load the snapshot, replay the rest, make the store; then
  /// stopped (not timed) without writing a snapshot. Milliseconds.
  private func start(_ location: PostgresLogLocation) async throws -> Double {
    let began = ContinuousClock.now
    let node = try PostgresLogRecovery.open(location)
    let store = Store(
      sink: node.sink, runner: NullStartRunner(), clock: SystemTimeSource(),
      recovered: node.recovered)
    let took = (ContinuousClock.now - began).inSeconds * 1000
    await store.close()
    return took
  }

  private func best(_ rounds: Int, _ body: () async throws -> Double) async throws -> Double {
    var best = Double.infinity
    for _ in 0..<rounds { best = min(best, try await body()) }
    return best
  }

  /// Inserts the realistic events with these seqs, as the log's rows (the lines a file log
  /// holds), 2,000 rows a statement, 50,000 a transaction.
  private func insertRealistic(_ seqs: ClosedRange<Int>, into location: PostgresLogLocation)
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
private final class NullStartRunner: EffectsRunner {
  func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery) {}
  func waitUntilIdle(timeout: Double) async -> Bool { true }
  func shutdown() async {}
}

/// Prints a line at once (the output may be a file, and the run may be cut short).
private func show(_ text: String) {
  FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

extension Duration {
  fileprivate var inSeconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
