import SusiCommandLine
import SusiCore
import SusiEventLog
import SusiJSON
import SusiPostgres
import SusiPostgresLog
import SusiStore

/// `susi replay postgresql://…`: the same replay, of a log kept in PostgreSQL. Each row is
/// checked (checksum, seq) as a file log's lines are.
enum DatabaseReplay {
  static func isDatabase(_ log: String) -> Bool { PostgresLogLocation.isLocation(log) }

  static func run(_ log: String, options: ParsedCommandLine, until: Int?, from: Int?) -> Int32 {
    let location: PostgresLogLocation
    let connection: PostgresConnection
    do {
      location = try PostgresLogLocation(log)
      connection = try PostgresConnection(location.database)
    } catch {
      StandardStream.error.line("susi replay: \(error)")
      return error.kind == .invalidURI ? ExitCode.usage : ExitCode.unavailable
    }
    if options.has("--stats") {
      return ReplayCommand.usage("--stats reads log files only")
    }
    return ReplayCommand.reporting {
      if options.has("--verify") {
        return try verify(log, location: location, on: connection, until: until)
      }
      if options.has("--step") {
        return try ReplayCommand.step(from: from ?? 0, json: options.has("--json")) {
          recovered, visit in
          try PostgresLogRecovery.replay(
            location, on: connection, into: &recovered, until: until, visit: visit)
          return nil
        }
      }
      var recovered = Recovered()
      if options.has("--from-snapshot") {
        // The newest snapshot in the database that matches the log (and lies before `until`);
        // none when the database has no snapshots table yet.
        let found =
          (try? PostgresSnapshots(location: location).newestValid(on: connection))
          ?? (snapshot: nil, warnings: [])
        for warning in found.warnings {
          StandardStream.error.line("susi replay: warning: \(warning)")
        }
        if let snapshot = found.snapshot, snapshot.checkpoint.seq <= until ?? Int.max {
          StandardStream.error.line(
            "susi replay: started from the snapshot at seq \(snapshot.checkpoint.seq)")
          recovered = snapshot.recovered
        }
      }
      try PostgresLogRecovery.replay(location, on: connection, into: &recovered, until: until)
      return ReplayCommand.show(recovered, log: location.description, options)
    }
  }

  /// Replays the log twice here and once in a fresh process, and compares the digests.
  private static func verify(
    _ log: String, location: PostgresLogLocation, on connection: PostgresConnection, until: Int?
  ) throws -> Int32 {
    var first = Recovered()
    try PostgresLogRecovery.replay(location, on: connection, into: &first, until: until)
    var second = Recovered()
    try PostgresLogRecovery.replay(
      location, on: connection, into: &second, until: until ?? first.lastSeq)
    let here = ReplayCommand.digest(first.state)
    guard let there = ReplayCommand.childDigest(path: log, until: until ?? first.lastSeq) else {
      StandardStream.error.line("susi replay: could not run a second replay in a fresh process")
      return ExitCode.software
    }
    guard here == ReplayCommand.digest(second.state), here == there else {
      StandardStream.error.line(
        "susi replay: NOT deterministic: the replays of \(location) disagree (digests \(here) "
          + "here, \(there) in a fresh process)")
      return ExitCode.dataError
    }
    StandardStream.output.line(
      "verified: \(first.lastSeq) events replay to the same state in two processes (sha256 \(here))"
    )
    return ExitCode.success
  }
}
