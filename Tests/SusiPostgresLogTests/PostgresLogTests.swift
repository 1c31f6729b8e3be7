import Foundation
import SusiClock
import SusiCore
import SusiCoreTesting
import SusiEventLog
import SusiHTTPTesting
import SusiJSON
import SusiPostgres
import SusiPostgresLog
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// The event log in a real PostgreSQL (a throw-away cluster of the test process's own): stores
/// on it log exactly what a file log holds, several stores (nodes) share it with gap-free seqs,
/// and a follower is woken by NOTIFY. One test at a time: a node waiting for another's append
/// lock blocks a thread, and the other node needs one to commit its group.
@Suite(
  .serialized,
  .enabled(
    if: PostgresCluster.program.testsShouldRun,
    Comment(rawValue: PostgresCluster.program.skipNote)))
struct PostgresLogTests {
  /// A node: a store on the database log.
  struct Node {
    let store: Store
    let runner: ManualRunner
    let opened: PostgresLogRecovery.Opened

    init(_ location: PostgresLogLocation, clock: ManualTimeSource) throws {
      opened = try PostgresLogRecovery.open(location)
      runner = ManualRunner()
      store = Store(
        sink: opened.sink, runner: runner, clock: clock, recovered: opened.recovered)
    }
  }

  func freshLog(_ table: String? = nil) throws -> PostgresLogLocation {
    let cluster = try PostgresCluster.shared()
    let database = try cluster.database()
    return try PostgresLogLocation(cluster.uri(database, extra: table.map { "&log=\($0)" } ?? ""))
  }

  func rows(_ location: PostgresLogLocation) throws -> [(seq: Int, line: [UInt8])] {
    let connection = try PostgresConnection(location.database)
    return try PostgresEventLog.lines(
      after: 0, limit: 1_000_000, location: location, on: connection)
  }

  /// The same actions, sent at the same clock to a store on a file and to one on the database.
  func sendSample(to store: Store, runner: ManualRunner) async throws {
    let groups = try await store.send(.loadGroups(.init()), origin: .jsonl, id: .string("r1"))
    await runner.deliver(.groupsLoaded(.init(groups: ["Knowledge", "Fun"])), for: groups.seq)
    let asked = try await store.send(.sendMessage(.init(query: "hi ünïcode ✓")), origin: .cli)
    let answer = Action.MessageReceived(
      query: "hi ünïcode ✓", answers: [.answer(expression: "Hello!", language: nil, mood: nil)])
    await runner.deliver(.messageReceived(answer), for: asked.seq)
  }

  @Test func aStoreOnTheDatabaseLogsTheFileLogsExactLines() async throws {
    let location = try freshLog()
    let node = try Node(location, clock: ManualTimeSource(ReducerTester.epoch))
    #expect(node.opened.alone)
    try await sendSample(to: node.store, runner: node.runner)
    await node.store.close()

    let folder = FileManagerTestFolder()
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let path = folder.path + "/events.jsonl"
    let writer = try EventLogWriter(path: path, options: .init(fsync: .never))
    let runner = ManualRunner()
    let fileStore = Store(
      sink: FileEventSink(writer: writer), runner: runner,
      clock: ManualTimeSource(ReducerTester.epoch))
    try await sendSample(to: fileStore, runner: runner)
    await fileStore.close()

    let fileLines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
      .map { Array($0.utf8) }
    let stored = try rows(location)
    #expect(stored.count == 4)
    #expect(stored.map(\.seq) == [1, 2, 3, 4])
    #expect(stored.map(\.line) == fileLines)

    // A restart replays the table to the same state, and continues after it.
    let again = try Node(location, clock: ManualTimeSource(ReducerTester.epoch))
    var replayed = Recovered()
    try LogReplay.run(path: path, into: &replayed)
    #expect(again.opened.recovered.state == replayed.state)
    #expect(again.opened.recovered.lastSeq == 4)
    let next = try await again.store.send(.loadGroups(.init()), origin: .cli)
    #expect(next.seq == 5)
    await again.store.close()
  }

  @Test func twoNodesAppendingAtOnceKeepSeqsGapFreeAndEachAppliesEverythingBefore() async throws {
    let location = try freshLog("shared_log")
    let clock = ManualTimeSource(ReducerTester.epoch)
    let a = try Node(location, clock: clock)
    let b = try Node(location, clock: clock)
    #expect(a.opened.alone)
    #expect(!b.opened.alone, "the first node holds the log")
    let seenByA = Mutex<[Int]>([])
    let seenByB = Mutex<[Int]>([])
    let followA = EventForwarding(a.store.events(after: 0)) { event in
      seenByA.withLock { $0.append(event.seq) }
    }
    let followB = EventForwarding(b.store.events(after: 0)) { event in
      seenByB.withLock { $0.append(event.seq) }
    }

    let perNode = 60
    await withTaskGroup(of: Void.self) { group in
      for (node, name) in [(a, "a"), (b, "b")] {
        group.addTask {
          for n in 0..<perNode {
            _ = try? await node.store.send(
              .sendMessage(.init(query: "\(name) \(n)")), origin: EventOrigin(rawValue: name))
          }
        }
      }
    }
    await a.store.catchUp()
    await b.store.catchUp()
    followA.stop()
    followB.stop()

    let stored = try rows(location)
    #expect(stored.map(\.seq) == Array(1...(2 * perNode)))
    // Every node applied every event, in seq order, with nothing skipped.
    #expect(seenByA.withLock { $0 } == Array(1...(2 * perNode)))
    #expect(seenByB.withLock { $0 } == Array(1...(2 * perNode)))
    #expect(await a.store.state == b.store.state)
    // Each node started only its own intents' effects.
    #expect(a.runner.effects.count == perNode)
    #expect(b.runner.effects.count == perNode)
    let causesOfA = Set(a.runner.effects.map(\.cause))
    let causesOfB = Set(b.runner.effects.map(\.cause))
    #expect(causesOfA.isDisjoint(with: causesOfB))
    await a.store.close()
    await b.store.close()
  }

  /// The record of an intent with this seq.
  func intentRecord(_ seq: Int) -> [UInt8] {
    Event(
      seq: seq, at: ReducerTester.epoch, origin: .cli, cause: nil, id: nil, idempotencyKey: nil,
      action: .sendMessage(.init(query: "question \(seq)"))
    ).encoded()
  }

  /// How many transactions wrote the log's rows (rows a transaction inserts share its `xmin`).
  func transactions(_ location: PostgresLogLocation) throws -> Int? {
    let connection = try PostgresConnection(location.database)
    defer { connection.close() }
    return try connection.execute(
      "SELECT count(DISTINCT xmin::text) FROM \(location.table)"
    ).int(0, 0)
  }

  @Test func aGroupOfAppendsIsOneTransactionInvisibleToOthersUntilItCommits() throws {
    let location = try freshLog()
    let sink = try PostgresLogRecovery.open(location).sink
    #expect(sink.commitsInGroups)
    for seq in 1...3 { _ = try sink.append(intentRecord(seq)) }
    #expect(try rows(location).isEmpty, "nothing is visible before the commit")
    try sink.commit()
    #expect(try rows(location).map(\.seq) == [1, 2, 3])
    #expect(try transactions(location) == 1)
    // The next group goes on after it, in a transaction of its own.
    _ = try sink.append(intentRecord(4))
    try sink.commit()
    #expect(try rows(location).map(\.seq) == [1, 2, 3, 4])
    #expect(try transactions(location) == 2)
    sink.close()

    // Without group commit every append is a transaction of its own, committed on return.
    let single = try freshLog()
    let one = try PostgresLogRecovery.open(single, groupCommit: false).sink
    #expect(!one.commitsInGroups)
    for seq in 1...3 {
      _ = try one.append(intentRecord(seq))
      #expect(try rows(single).count == seq)
    }
    #expect(try transactions(single) == 3)
    one.close()
  }

  @Test func aGroupsRowsRepeatEachEventsTimeOriginAndTypeAndItsIntentsOwner() async throws {
    let location = try freshLog()
    let sink = try PostgresLogRecovery.open(location).sink
    let node = try #require(sink.node)
    // One group: an intent with an origin an array literal must quote, a result, and a raw
    // record appended as bytes; times a millisecond apart.
    let odd = EventOrigin(rawValue: #"we"ird\, {origin} "#)
    let events = [
      Event(
        seq: 1, at: ReducerTester.epoch, origin: odd, cause: nil, id: nil,
        idempotencyKey: nil, action: .sendMessage(.init(query: "ünïcode ✓ \\ \""))),
      Event(
        seq: 2, at: ReducerTester.epoch.adding(milliseconds: 1), origin: .runner, cause: 1,
        id: nil, idempotencyKey: nil,
        action: .messageReceived(
          .init(query: "q", answers: [.answer(expression: "a", language: nil, mood: nil)]))),
    ]
    var lines: [[UInt8]] = []
    for event in events { lines.append(try sink.appendEvent(after: { _ in event })) }
    lines.append(try sink.append(intentRecord(3)))
    try sink.commit()
    sink.close()

    let connection = try PostgresConnection(location.database)
    defer { connection.close() }
    let stored = try connection.execute(
      """
      SELECT seq, (extract(epoch FROM at) * 1000)::bigint, origin, type FROM \(location.table)
      ORDER BY seq
      """)
    let expected = events + [try Event.decode(intentRecord(3))]
    #expect(stored.count == 3)
    for (row, event) in expected.enumerated() {
      #expect(stored.int(row, 0) == event.seq)
      #expect(stored.int(row, 1) == Int(event.at.milliseconds))
      #expect(stored.text(row, 2) == event.origin.rawValue)
      #expect(stored.text(row, 3) == event.action.type.rawValue)
    }
    #expect(try rows(location).map(\.line) == lines)
    #expect(try lines.map { try Event.read(logLine: $0) } == expected)
    // The intents (no cause) are this node's.
    let owners = try connection.execute(
      "SELECT seq, node FROM susi_log_owners WHERE log = $1 ORDER BY seq", [.text(location.table)])
    #expect((0..<owners.count).compactMap { owners.int($0, 0) } == [1, 3])
    #expect((0..<owners.count).compactMap { owners.int($0, 1) } == [node, node])
  }

  @Test(
    .enabled(
      if: (try? PostgresCluster.shared().countsStatements) == true,
      "the server's package has no pg_stat_statements"))
  func aGroupRunsTheSameNineStatementsWhateverItsSizeAndNothingElse() throws {
    let location = try freshLog()
    let sink = try PostgresLogRecovery.open(location).sink
    // A first group, which also sets the connection up.
    _ = try sink.append(intentRecord(1))
    try sink.commit()
    let watcher = try PostgresConnection(location.database)
    defer { watcher.close() }
    try watcher.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    let database = "(SELECT oid FROM pg_database WHERE datname = current_database())"
    try watcher.execute("SELECT pg_stat_statements_reset(0, \(database), 0)")
    // Three groups of one, four and ten appends.
    var seq = 1
    for size in [1, 4, 10] {
      for _ in 0..<size {
        seq += 1
        _ = try sink.append(intentRecord(seq))
      }
      try sink.commit()
    }
    sink.close()
    let counted = try watcher.execute(
      """
      SELECT calls, query FROM pg_stat_statements
      WHERE dbid = \(database) AND query NOT LIKE '%pg_stat_statements%' ORDER BY query
      """)
    let statements = (0..<counted.count).map {
      (calls: counted.int($0, 0), query: counted.text($0, 1) ?? "")
    }
    // Per group: the transaction, the append lock (and a commit that does not wait for the
    // disk), what other nodes appended, one statement for the rows and the owners, the commit;
    // then a transaction that waits for the disk, and the notification.
    #expect(statements.count == 7, "\(statements)")
    let twice = ["BEGIN", "COMMIT"]
    #expect(
      statements.allSatisfy { $0.calls == (twice.contains($0.query) ? 6 : 3) }, "\(statements)")
    for part in [
      "BEGIN", "pg_advisory_xact_lock", "SELECT seq, line FROM \(location.table) WHERE seq >",
      "INSERT INTO susi_log_owners", "COMMIT", "setval('susi_log_flush', 1)", "pg_notify",
    ] {
      #expect(statements.contains { $0.query.contains(part) }, "\(part)")
    }
    #expect(try rows(location).map(\.seq) == Array(1...16))
  }

  @Test(
    .enabled(
      if: (try? PostgresCluster.shared().countsStatements) == true,
      "the server's package has no pg_stat_statements"))
  func theReadThatOpensAGroupReadsTheIndexAfterTheLogGrew() throws {
    let location = try freshLog()
    let sink = try PostgresLogRecovery.open(location).sink
    var seq = 0
    func group(_ size: Int) throws {
      for _ in 0..<size {
        seq += 1
        _ = try sink.append(intentRecord(seq))
      }
      try sink.commit()
    }
    // Many groups while the log is small (a plan kept from then would scan the table), then
    // the log grows to many pages.
    for _ in 0..<12 { try group(1) }
    for _ in 0..<6 { try group(500) }
    let watcher = try PostgresConnection(location.database)
    defer { watcher.close() }
    try watcher.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    let database = "(SELECT oid FROM pg_database WHERE datname = current_database())"
    try watcher.execute("SELECT pg_stat_statements_reset(0, \(database), 0)")
    for _ in 0..<5 { try group(1) }
    sink.close()
    let pages = try watcher.execute(
      "SELECT pg_relation_size($1::regclass) / 8192", [.text(location.table)]
    ).int(0, 0)
    let read = try watcher.execute(
      """
      SELECT calls, shared_blks_hit + shared_blks_read FROM pg_stat_statements
      WHERE dbid = \(database) AND query LIKE 'SELECT seq, line FROM %'
      """)
    #expect(read.count == 1)
    let calls = try #require(read.int(0, 0))
    let blocks = try #require(read.int(0, 1))
    #expect(calls == 5)
    // An index scan reads a few blocks (the index's root and leaf, a heap page); a scan of the
    // table reads every page.
    #expect(try #require(pages) > 40)
    #expect(
      blocks / max(1, calls) < 10, "\(blocks) blocks in \(calls) reads of \(pages ?? 0) pages")
  }

  @Test func aGroupWithoutIntentsAndASinkWithoutANodeRecordNoOwners() throws {
    let location = try freshLog()
    let connection = try PostgresEventLog.connect(location)
    // No node: its intents have no owner.
    let sink = PostgresEventSink(location: location, connection: connection, lastSeq: 0)
    _ = try sink.append(intentRecord(1))
    try sink.commit()
    sink.close()
    // A node's group holding only a result: no intent to own.
    let node = try PostgresLogRecovery.open(location).sink
    let result = Event(
      seq: 2, at: ReducerTester.epoch, origin: .runner, cause: 1, id: nil, idempotencyKey: nil,
      action: .messageReceived(
        .init(query: "question 1", answers: [.answer(expression: "a", language: nil, mood: nil)]))
    )
    _ = try node.appendEvent(after: { _ in result })
    try node.commit()
    node.close()
    #expect(try rows(location).map(\.seq) == [1, 2])
    let watcher = try PostgresConnection(location.database)
    defer { watcher.close() }
    let owners = try watcher.execute(
      "SELECT count(*) FROM susi_log_owners WHERE log = $1", [.text(location.table)])
    #expect(owners.int(0, 0) == 0)
  }

  @Test func anotherNodeAppendsAfterAGroupCommitsAndFollowsIt() async throws {
    let location = try freshLog()
    let clock = ManualTimeSource(ReducerTester.epoch)
    let a = try Node(location, clock: clock)
    let b = try Node(location, clock: clock)
    // A group of a's holds the append lock: b's append waits for its commit, then follows it.
    _ = try a.opened.sink.append(intentRecord(1))
    let appendedByB = Task {
      try await b.store.send(.sendMessage(.init(query: "from b")), origin: .cli).seq
    }
    _ = try a.opened.sink.append(intentRecord(2))
    try a.opened.sink.commit()
    #expect(try await appendedByB.value == 3)
    #expect(try rows(location).map(\.seq) == [1, 2, 3])
    #expect(await b.store.lastSeq == 3)
    a.opened.sink.close()
    await b.store.close()
  }

  @Test func theRequestsOfANodeThatDiedAreClosedByAnotherAndTheLogShowsIt() async throws {
    let location = try freshLog()
    let clock = ManualTimeSource(ReducerTester.epoch)
    let a = try Node(location, clock: clock)
    let b = try Node(location, clock: clock)
    let asked = try await a.store.send(.sendMessage(.init(query: "left open")), origin: .cli)
    let own = try await b.store.send(.sendMessage(.init(query: "b's own")), origin: .cli)
    await b.store.catchUp()
    #expect(await b.store.state.inFlight[asked.seq] != nil)
    let nodeB = try #require(b.opened.sink.node)
    let takeover = PostgresTakeover(location: location, node: nodeB)
    defer { takeover.close() }

    // While a lives, its request is its own to finish.
    #expect(try await takeover.sweep(b.store).isEmpty)
    // a dies before logging the result: its connection, and its node lock, go (once the
    // server has noticed the closed connection).
    a.opened.sink.close()
    let closed = Mutex<[Int]>([])
    await waitUntil("a sweep that finds a's request") {
      let found = (try? await takeover.sweep(b.store)) ?? []
      closed.withLock { $0 += found }
      return !found.isEmpty
    }
    #expect(closed.withLock { $0 } == [asked.seq])
    let stored = try rows(location)
    #expect(stored.count == 3)
    let closing = try Event.decode(try #require(stored.last).line)
    #expect(closing.cause == asked.seq)
    #expect(closing.origin == .store)
    guard case .requestFailed(let failed) = closing.action else {
      Issue.record("not a requestFailed: \(closing.action)")
      return
    }
    #expect(failed.error.kind == .interrupted)
    // b's own request stays b's; a second sweep finds nothing more.
    #expect(await b.store.state.inFlight[own.seq] != nil)
    #expect(try await takeover.sweep(b.store).isEmpty)
    #expect(try rows(location).count == 3)
    // A sweep forgets the owners of settled intents: only b's open one is left.
    let connection = try PostgresConnection(location.database)
    defer { connection.close() }
    let owners = try connection.execute(
      "SELECT seq FROM susi_log_owners WHERE log = $1 ORDER BY seq", [.text(location.table)])
    #expect((0..<owners.count).compactMap { owners.int($0, 0) } == [own.seq])
    await a.store.close()
    await b.store.close()
  }

  @Test func aFollowerIsWokenByNotifyWhenAnotherNodeAppends() async throws {
    let location = try freshLog()
    let clock = ManualTimeSource(ReducerTester.epoch)
    let writer = try Node(location, clock: clock)
    let reader = try Node(location, clock: clock)
    let follower = try PostgresFollower(
      location: location, sink: reader.opened.sink, store: reader.store)
    defer { follower.stop() }

    let stream = reader.store.events(after: 0)
    let sent = try await writer.store.send(.sendMessage(.init(query: "across")), origin: .cli)
    // No catch-up is called here: only the notification can bring the event to the reader.
    let received = try await firstEvent(of: stream)
    #expect(received?.seq == sent.seq)
    #expect(received?.line == sent.line)
    #expect(received?.byAnotherProcess == true)
    #expect(await reader.store.lastSeq == sent.seq)
    await writer.store.close()
    await reader.store.close()
  }

  @Test func aDamagedRowIsReportedWithItsSeqAndNothingAfterItIsApplied() async throws {
    let location = try freshLog()
    let node = try Node(location, clock: ManualTimeSource(ReducerTester.epoch))
    try await sendSample(to: node.store, runner: node.runner)
    await node.store.close()
    let connection = try PostgresConnection(location.database)
    try connection.execute(
      "UPDATE \(location.table) SET line = overlay(line placing '\\x58'::bytea from 30 for 1) WHERE seq = 3"
    )
    #expect {
      _ = try PostgresLogRecovery.open(location)
    } throws: { error in
      "\(error)".contains("seq 3") && "\(error)".contains("checksum")
    }
  }

  @Test func aPasswordInTheURIIsRefusedAndNeverShown() throws {
    for uri in [
      "postgresql://susi:hunter2@localhost/db", "postgres://localhost/db?password=hunter2&log=x",
    ] {
      #expect {
        _ = try PostgresLogLocation(uri)
      } throws: { error in
        "\(error)".contains("***") && !"\(error)".contains("hunter2")
      }
    }
    #expect(
      PostgresURI.redact("postgresql://u:hunter2@h:5/d?password=x2&a=1")
        == "postgresql://u:***@h:5/d?password=***&a=1")
  }

  @Test func aConnectionErrorNamesTheDatabaseWithoutThePassword() throws {
    let cluster = try PostgresCluster.shared()
    let location = try PostgresLogLocation(cluster.uri("no_such_database"))
    #expect {
      _ = try PostgresLogRecovery.open(location)
    } throws: { error in
      "\(error)".contains("no_such_database")
    }
  }

  /// The first event `stream` yields, or nil after `hangLimitSeconds`.
  func firstEvent(of stream: EventStream) async throws -> PublishedEvent? {
    try await withThrowingTaskGroup(of: PublishedEvent?.self) { group in
      group.addTask {
        var iterator = stream.makeAsyncIterator()
        return try await iterator.next()
      }
      group.addTask {
        try await Task.sleep(for: .seconds(hangLimitSeconds))
        return nil
      }
      let first = try await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }
}
