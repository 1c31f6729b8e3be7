import SusiCore
import SusiPostgres
import SusiPostgresLog
import SusiStore

/// `susi replay postgresql://…`: the same replay, of a log kept in PostgreSQL. Each row is
/// checked (checksum, seq) as a file log's lines are.
enum DatabaseReplay {
  static func isDatabase(_ log: String) -> Bool { PostgresLogLocation.isLocation(log) }

  /// The log at `log`, on a connection of its own.
  static func open(_ log: String) throws(PostgresError) -> ReplaySource {
    let location = try PostgresLogLocation(log)
    let connection = try PostgresConnection(location.database)
    return ReplaySource(
      path: log, name: location.description, isFile: false,
      fold: { recovered, until, visit in
        try PostgresLogRecovery.replay(
          location, on: connection, into: &recovered, until: until, visit: visit ?? { _, _, _ in })
        return nil
      },
      // None when the database has no snapshots table yet.
      newestSnapshot: {
        (try? PostgresSnapshots(location: location).newestValid(on: connection))
          ?? (snapshot: nil, warnings: [])
      })
  }
}
