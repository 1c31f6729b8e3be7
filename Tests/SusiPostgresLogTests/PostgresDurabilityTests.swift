import SusiClock
import SusiCore
import SusiCoreTesting
import SusiHTTPTesting
import SusiPostgres
import SusiPostgresLog
import SusiStore
import SusiTesting
import Synchronization
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

  /// A group's commit frees the log's append lock before it waits for the disk, so another node
  /// appends meanwhile; and no node answers for a record, or hands another's record to its
  /// store, before the disk has it. The server here waits for a synchronous standby that never
  /// comes, so each of those waits lasts until the test lets go.
  @Test(.hangLimit)
  func anotherNodeAppendsWhileAGroupWaitsForTheDiskAndNothingIsShownBefore() async throws {
    let cluster = try PostgresCluster(durable: true)
    defer { cluster.stop() }
    let name = try cluster.database()
    let location = try PostgresLogLocation(cluster.uri(name))
    // Set before a start, so they hold from it: `local` (no standby) while the tables are made,
    // `on` for the nodes' connections.
    let setup = try PostgresConnection(location.database)
    try setup.execute("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
    try setup.execute("ALTER SYSTEM SET synchronous_commit = 'local'")
    setup.close()
    try cluster.run(
      "pg_ctl",
      ["-D", cluster.folder + "/data", "-l", cluster.folder + "/server.log", "-w", "restart"])
    let admin = try PostgresEventLog.connect(location)
    defer { admin.close() }
    try admin.execute("ALTER DATABASE \(name) SET synchronous_commit = on")
    let nodes = try (0..<3).map { _ in try PostgresLogRecovery.open(location).sink }
    defer { for node in nodes { node.close() } }
    func waitingForTheDisk() -> Int {
      let found = try? admin.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
      return found?.int(0, 0) ?? -1
    }
    func record(_ seq: Int) -> [UInt8] {
      Event(
        seq: seq, at: ReducerTester.epoch, origin: .cli, cause: nil, id: nil,
        idempotencyKey: nil, action: .sendMessage(.init(query: "question \(seq)"))
      ).encoded()
    }
    let answered = Answered()

    _ = try nodes[0].append(record(1))
    async let first: Void = onThread {
      try nodes[0].commit()
      answered.count.add(1, ordering: .relaxed)
    }
    await waitUntil("the first node's commit to wait for the disk") { waitingForTheDisk() == 1 }
    // The lock is free: the second node sees the first one's record and appends after it.
    var seen: [[UInt8]] = []
    _ = try nodes[1].append { others in
      seen = others
      return record(2)
    }
    #expect(seen.count == 1)
    async let second: Void = onThread {
      try nodes[1].commit()
      answered.count.add(1, ordering: .relaxed)
    }
    await waitUntil("the second node's commit to wait for the disk") { waitingForTheDisk() == 2 }
    // A third node catching up reads both records, then waits for the disk before its store
    // may show them.
    async let caughtUp = onThread { () throws -> Int in
      let lines = try nodes[2].appendedByOthers()
      answered.count.add(1, ordering: .relaxed)
      return lines.count
    }
    await waitUntil("the third node to wait for the disk") { waitingForTheDisk() == 3 }
    #expect(answered.count.load(ordering: .relaxed) == 0)

    try admin.execute("ALTER SYSTEM SET synchronous_standby_names = ''")
    try admin.execute("SELECT pg_reload_conf()")
    try await first
    try await second
    #expect(try await caughtUp == 2)
    #expect(answered.count.load(ordering: .relaxed) == 3)
    let stored = try PostgresEventLog.lines(after: 0, location: location, on: admin)
    #expect(stored.map(\.seq) == [1, 2])
  }
}

/// How many of the nodes' calls have returned.
private final class Answered: Sendable {
  let count = Atomic<Int>(0)
}
