import SusiClock
import SusiCore
import SusiCoreTesting
import SusiPostgres
import SusiPostgresLog
import SusiStore
import SusiTesting
import Testing

/// Acknowledged means on disk: a server of its own with PostgreSQL's durable defaults, stopped at
/// once (what it holds in memory is lost, as in a crash) right after the acknowledgements.
@Suite(
  .enabled(
    if: PostgresCluster.program.testsShouldRun,
    Comment(rawValue: PostgresCluster.program.skipNote)))
struct PostgresDurabilityTests {
  @Test func everyAcknowledgedAppendIsThereAfterTheServerStopsAtOnce() async throws {
    let cluster = try PostgresCluster(durable: true)
    defer { cluster.stop() }
    let location = try PostgresLogLocation(cluster.uri(try cluster.database()))
    let opened = try PostgresLogRecovery.open(location)
    let store = Store(
      sink: opened.sink, runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch),
      recovered: opened.recovered)
    var acknowledged: [Int] = []
    for n in 0..<30 {
      acknowledged.append(
        try await store.send(.sendMessage(.init(query: "question \(n)")), origin: .cli).seq)
    }
    let data = cluster.folder + "/data"
    try cluster.run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
    await store.close()
    try cluster.run(
      "pg_ctl",
      [
        "-D", data, "-l", cluster.folder + "/server.log", "-w", "-o",
        "-c listen_addresses='' -k \(cluster.folder)", "start",
      ])
    let connection = try PostgresConnection(location.database)
    defer { connection.close() }
    let stored = try PostgresEventLog.lines(after: 0, location: location, on: connection)
    #expect(stored.map(\.seq) == acknowledged)
  }
}
