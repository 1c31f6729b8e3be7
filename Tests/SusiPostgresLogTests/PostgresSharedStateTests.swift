import Foundation
import SusiAccess
import SusiClock
import SusiCore
import SusiCoreTesting
import SusiDelivery
import SusiEventLog
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiPostgres
import SusiPostgresLog
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// What a node needs besides the log, kept in the database beside a log in PostgreSQL so every
/// node of a fleet shares it: snapshots, API key hashes, subscribers (and idempotency keys,
/// which the log itself carries). A real cluster, never a mock.
@Suite(
  .serialized,
  .enabled(
    if: PostgresCluster.program.testsShouldRun,
    Comment(rawValue: PostgresCluster.program.skipNote)))
struct PostgresSharedStateTests {
  func freshLog() throws -> PostgresLogLocation {
    let cluster = try PostgresCluster.shared()
    return try PostgresLogLocation(cluster.uri(try cluster.database()))
  }

  /// A node: a store on the database log, writing a snapshot every `every` events.
  struct Node {
    let store: Store
    let runner = ManualRunner()
    let opened: PostgresLogRecovery.Opened

    init(_ location: PostgresLogLocation, every: Int = 4) async throws {
      opened = try PostgresLogRecovery.open(location, snapshotEvery: every)
      store = Store(
        sink: opened.sink, runner: runner, clock: ManualTimeSource(ReducerTester.epoch),
        recovered: opened.recovered)
      await store.keepSnapshots(opened.snapshots)
    }

    /// Sends `count` ratings the reducer refuses (two events each).
    func rate(_ count: Int) async throws {
      for stars in 0..<count {
        try await store.send(
          .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 10 + stars)),
          origin: .webhook)
      }
    }

    func stop() async {
      await store.close()
      await store.finishSnapshots()
    }
  }

  /// The whole log replayed from seq 1, ignoring every snapshot.
  func fullReplay(_ location: PostgresLogLocation) throws -> Recovered {
    var recovered = Recovered()
    try PostgresLogRecovery.replay(
      location, on: try PostgresConnection(location.database), into: &recovered)
    return recovered
  }

  func execute(_ location: PostgresLogLocation, _ sql: String, _ values: [PostgresValue] = [])
    throws -> PostgresResult
  {
    let connection = try PostgresConnection(location.database)
    defer { connection.close() }
    return try connection.execute(sql, values, binaryResult: true)
  }

  // MARK: Snapshots

  @Test func aStartBeginsFromTheNewestSnapshotInTheDatabaseAndReplaysOnlyTheTail() async throws {
    let location = try freshLog()
    let first = try await Node(location)
    try await first.rate(6)
    await first.stop()
    // Every 4 events while running (one due while another is written is skipped; then the clean
    // stop, with 4 or more events not covered, writes 12); the newest two are kept.
    let snapshots = PostgresSnapshots(location: location)
    let connection = try PostgresConnection(location.database)
    let kept = try snapshots.seqs(on: connection)
    #expect(kept.count == 2 && kept.first == 12 && [4, 8].contains(kept.last ?? 0))

    let second = try await Node(location)
    #expect(second.opened.snapshotSeq == 12)
    #expect(second.opened.warnings.isEmpty)
    #expect(
      Snapshot.digest(second.opened.recovered.state)
        == Snapshot.digest(try fullReplay(location).state))
    // The row holds a snapshot file's bytes, with the digest it stands for beside them.
    let row = try execute(
      location, "SELECT state_digest, snapshot FROM susi_snapshots WHERE seq = 12")
    let bytes = try #require(row.bytes(0, 1))
    let decoded = try Snapshot(decoding: bytes)
    #expect(row.text(0, 0) == Snapshot.digest(decoded.recovered.state))
    #expect(decoded.checkpoint.seq == 12)

    // Four more events, then a start without a clean stop: the snapshot at 16 was written in the
    // background by the node that appended 16, and the start replays nothing after it.
    try await second.rate(2)
    await waitUntil("the snapshot at 16 is in") {
      (try? snapshots.seqs(on: connection).first) == 16
    }
    let third = try await Node(location)
    #expect(third.opened.snapshotSeq == 16)
    #expect(third.opened.recovered.lastSeq == 16)
    await second.stop()
    await third.stop()
    connection.close()
  }

  @Test func aLongSnapshotIsStoredUncompressedAndAStartFromItReachesTheFullReplaysState()
    async throws
  {
    let location = try freshLog()
    _ = try PostgresEventLog.connect(location).close()
    let storage =
      "SELECT attstorage FROM pg_attribute "
      + "WHERE attrelid = 'susi_snapshots'::regclass AND attname = 'snapshot'"
    // As a version that compressed snapshots left the table: the next snapshot written changes
    // it.
    _ = try execute(
      location, "ALTER TABLE susi_snapshots ALTER COLUMN snapshot SET STORAGE EXTENDED")
    #expect(try execute(location, storage).text(0, 0) == "x")

    // A snapshot long enough (64 KB) that PostgreSQL would otherwise compress it; written by the
    // clean stop, since the interval's worth of events (2,000) is not covered.
    try insertMessages(1...2000, into: location)
    let first = try await Node(location, every: 2000)
    await first.stop()
    #expect(try execute(location, storage).text(0, 0) == "e")
    let sizes = try execute(
      location,
      "SELECT octet_length(snapshot), pg_column_size(snapshot) FROM susi_snapshots "
        + "WHERE seq = 2000")
    let length = try #require(sizes.int(0, 0))
    #expect(length >= 64 << 10)
    #expect(sizes.int(0, 1) == length)

    let expected = try fullReplay(location)
    let again = try await Node(location, every: 10_000)
    #expect(again.opened.snapshotSeq == 2000)
    #expect(again.opened.warnings.isEmpty)
    #expect(again.opened.recovered.state == expected.state)
    #expect(again.opened.recovered.ledger.count == expected.ledger.count)
    await again.stop()
  }

  @Test func aDamagedOrForeignSnapshotIsIgnoredWithAWarningAndTheLogIsReplayed() async throws {
    let location = try freshLog()
    let node = try await Node(location)
    try await node.rate(6)
    await node.stop()
    let expected = Snapshot.digest(try fullReplay(location).state)

    // The newest (12) damaged in its body, the older one made by another version of susi.
    let rows = try execute(location, "SELECT seq, snapshot FROM susi_snapshots ORDER BY seq")
    let older = try #require(rows.int(0, 0))
    var damaged = try #require(rows.bytes(1, 1))
    damaged[damaged.count - 10] ^= 0x01
    var foreign = String(decoding: try #require(rows.bytes(0, 1)), as: UTF8.self)
    foreign = foreign.replacingOccurrences(
      of: "\"reducer\":\(State.reducerVersion)", with: "\"reducer\":\(State.reducerVersion + 1)")
    _ = try execute(
      location, "UPDATE susi_snapshots SET snapshot = $1 WHERE seq = 12", [.bytes(damaged)])
    _ = try execute(
      location, "UPDATE susi_snapshots SET snapshot = $1 WHERE seq = $2",
      [.bytes(Array(foreign.utf8)), .int(older)])

    let again = try await Node(location)
    #expect(again.opened.snapshotSeq == nil)
    try #require(again.opened.warnings.count == 2)
    #expect(again.opened.warnings[0].contains("ignored the snapshot at seq 12"))
    #expect(again.opened.warnings[0].contains("checksum"))
    #expect(again.opened.warnings[1].contains("ignored the snapshot at seq \(older)"))
    #expect(again.opened.warnings[1].contains("another version of susi"))
    #expect(Snapshot.digest(again.opened.recovered.state) == expected)
    await again.stop()
  }

  @Test func whenTheNewestSnapshotIsDamagedTheNextOlderOneIsUsedWithAWarning() async throws {
    let location = try freshLog()
    let node = try await Node(location)
    try await node.rate(6)
    await node.stop()
    let expected = try fullReplay(location)
    let rows = try execute(location, "SELECT seq FROM susi_snapshots ORDER BY seq")
    let older = try #require(rows.int(0, 0))
    let newest = try #require(rows.int(1, 0))
    #expect(newest == 12 && older < newest)
    let damaged = try execute(
      location, "SELECT snapshot FROM susi_snapshots WHERE seq = $1", [.int(newest)])
    var bytes = try #require(damaged.bytes(0, 0))
    bytes[bytes.count / 2] ^= 0x01
    _ = try execute(
      location, "UPDATE susi_snapshots SET snapshot = $1 WHERE seq = $2",
      [.bytes(bytes), .int(newest)])

    let again = try await Node(location)
    #expect(again.opened.snapshotSeq == older)
    #expect(again.opened.warnings.count == 1)
    #expect(again.opened.warnings.first?.contains("ignored the snapshot at seq \(newest)") == true)
    #expect(again.opened.recovered.lastSeq == expected.lastSeq)
    #expect(
      Snapshot.digest(again.opened.recovered.state) == Snapshot.digest(expected.state))
    await again.stop()
  }

  @Test func aStartOnASnapshotReadsATailOfSeveralBatchesAndReachesTheFullReplaysState()
    async throws
  {
    let location = try freshLog()
    let node = try await Node(location)
    try await node.rate(2)
    await node.stop()
    // 1,700 records after the snapshot at 4: read 500, 1,000, then the rest.
    try insertMessages(5...1704, into: location)
    let expected = try fullReplay(location)

    let again = try await Node(location, every: 10_000)
    #expect(again.opened.snapshotSeq == 4)
    #expect(again.opened.warnings.isEmpty)
    #expect(again.opened.recovered.lastSeq == 1704)
    #expect(again.opened.recovered.ledger.count == expected.ledger.count)
    #expect(
      Snapshot.digest(again.opened.recovered.state) == Snapshot.digest(expected.state))
    await again.stop()
  }

  @Test func aReplayVisitsEveryRecordOnceInOrderAcrossBatchesAndStopsAtUntil() throws {
    let location = try freshLog()
    _ = try PostgresEventLog.connect(location)
    try insertMessages(1...3600, into: location)
    let connection = try PostgresConnection(location.database)
    defer { connection.close() }
    // Batch ends (500, 1,500, 3,500), one before and after them, and the end of the log.
    for until in [nil, 499, 500, 501, 1500, 3499, 3500, 3501, 3600] as [Int?] {
      var recovered = Recovered()
      var seen: [Int] = []
      try PostgresLogRecovery.replay(
        location, on: connection, into: &recovered, until: until,
        visit: { event, _, _ in seen.append(event.seq) })
      let last = until ?? 3600
      #expect(seen == Array(1...last), "until \(String(describing: until))")
      #expect(recovered.lastSeq == last)
    }
    // A visitor that fails while the next batch is being read: the replay waits for that read
    // before it reports the failure, and the connection can be used again.
    struct Refused: Error {}
    var recovered = Recovered()
    #expect {
      try PostgresLogRecovery.replay(
        location, on: connection, into: &recovered,
        visit: { event, _, _ in if event.seq == 700 { throw Refused() } })
    } throws: { error in "\(error)".contains("seq 700") }
    #expect(recovered.lastSeq == 700)
    #expect(try connection.execute("SELECT count(*) FROM \(location.table)").int(0, 0) == 3600)
  }

  @Test func aDamagedRecordInALaterBatchStopsTheReplayThereAndTheConnectionStaysUsable() throws {
    let location = try freshLog()
    _ = try PostgresEventLog.connect(location)
    try insertMessages(1...2000, into: location)
    _ = try execute(
      location,
      "UPDATE \(location.table) SET line = overlay(line placing '\\x58'::bytea from 30 for 1) "
        + "WHERE seq = 1600")
    let connection = try PostgresConnection(location.database)
    defer { connection.close() }
    var recovered = Recovered()
    var seen = 0
    #expect {
      try PostgresLogRecovery.replay(
        location, on: connection, into: &recovered, visit: { _, _, _ in seen += 1 })
    } throws: { error in
      "\(error)".contains("seq 1600") && "\(error)".contains("checksum")
    }
    // What was applied is the log up to some point before it, in order; the read that was in
    // flight when the fold stopped is over, so the connection can be used again.
    #expect(seen < 1600 && recovered.lastSeq == seen)
    let count = try connection.execute("SELECT count(*) FROM \(location.table)")
    #expect(count.int(0, 0) == 2000)
  }

  @Test func aRecordThatIsNotAnEventStopsTheReplayRightBeforeItWhereverItIsDecoded() throws {
    // Rows 1,501 to 2,000 are one batch: 1,600 is in the half its reading thread decodes, 1,900
    // in the half the folding thread decodes.
    for bad in [1600, 1900] {
      let location = try freshLog()
      _ = try PostgresEventLog.connect(location)
      try insertMessages(1...2000, into: location)
      let line = EventLogWriter.line(for: Array(#"{"v":2,"seq":\#(bad),"what":"no event"}"#.utf8))
      _ = try execute(
        location, "UPDATE \(location.table) SET line = $1 WHERE seq = $2",
        [.bytes(line), .int(bad)])
      let connection = try PostgresConnection(location.database)
      defer { connection.close() }
      var recovered = Recovered()
      #expect {
        try PostgresLogRecovery.replay(location, on: connection, into: &recovered)
      } throws: { error in
        "\(error)".contains("seq \(bad)") && "\(error)".contains("not an event")
      }
      #expect(recovered.lastSeq == bad - 1)
    }
  }

  /// Appends `seqs` to the log as rows, each a question sent from the command line, a second
  /// apart (as `susi log copy` would write them), in one transaction.
  func insertMessages(_ seqs: ClosedRange<Int>, into location: PostgresLogLocation) throws {
    let connection = try PostgresConnection(location.database)
    defer { connection.close() }
    try connection.execute("BEGIN")
    for chunk in stride(from: seqs.lowerBound, through: seqs.upperBound, by: 500) {
      let last = min(chunk + 499, seqs.upperBound)
      var sql = "INSERT INTO \(location.table) (seq, at, origin, type, line) VALUES "
      var values: [PostgresValue] = []
      for seq in chunk...last {
        let event = Event(
          seq: seq,
          at: Timestamp(milliseconds: ReducerTester.epoch.milliseconds + Int64(seq) * 1000),
          origin: .cli, action: .sendMessage(.init(query: "question \(seq)")))
        let p = values.count
        sql += seq == chunk ? "" : ", "
        sql += "($\(p + 1), $\(p + 2)::timestamptz, $\(p + 3), $\(p + 4), $\(p + 5))"
        values += [
          .int(seq), .text(event.at.rfc3339), .text(event.origin.rawValue),
          .text(event.action.type.rawValue), .bytes(EventLogWriter.line(for: event.encoded())),
        ]
      }
      try connection.execute(sql, values)
    }
    try connection.execute("COMMIT")
  }

  @Test func aSnapshotIsNotUsedOnALogWhoseRecordAtItsSeqIsAnotherOne() async throws {
    let location = try freshLog()
    let node = try await Node(location, every: 0)
    try await node.rate(2)
    await node.stop()
    // A snapshot of another log that also reached seq 4: same seq, other record.
    let other = try freshLog()
    let elsewhere = try await Node(other, every: 3)
    try await elsewhere.store.send(.sendMessage(.init(query: "elsewhere")), origin: .cli)
    try await elsewhere.rate(1)
    await elsewhere.stop()
    let foreign = try execute(other, "SELECT snapshot FROM susi_snapshots WHERE seq = 3")
    _ = try execute(
      location,
      "INSERT INTO susi_snapshots (log, seq, state_digest, snapshot) VALUES ($1, 3, 'x', $2)",
      [.text(location.table), .bytes(try #require(foreign.bytes(0, 0)))])

    let again = try await Node(location)
    #expect(again.opened.snapshotSeq == nil)
    #expect(again.opened.warnings.first?.contains("does not match the log") == true)
    #expect(again.opened.recovered.lastSeq == 4)
    await again.stop()
  }

  // MARK: Keys and idempotency keys

  @Test func aKeyIssuedOnOneNodeIsAcceptedByTheOtherAndOnceRevokedByNeither() async throws {
    let location = try freshLog()
    let a = try await Node(location)
    let b = try await Node(location)
    let following = try PostgresFollower(location: location, sink: b.opened.sink, store: b.store)
    let keysA = try KeyFile(storage: PostgresKeyHashes(location: location))
    let keysB = try KeyFile(storage: PostgresKeyHashes(location: location))
    let gateA = await AccessGate.following(a.store, keys: keysA)
    let gateB = await AccessGate.following(b.store, keys: keysB)

    let issued = try await AccessAdministration(store: a.store, keys: keysA).issueKey(
      groups: [], label: "fleet", by: AccessControl.localOperator, origin: .cli)
    let headers: HTTPHeaders = ["Authorization": "Bearer \(issued.token.text)"]
    let issuedAt = issued.sent.published.seq
    await waitUntil("node b applied the key") { await b.store.lastSeq >= issuedAt }
    #expect(throws: Never.self) { try gateA.authenticate(headers) }
    #expect(throws: Never.self) { try gateB.authenticate(headers) }

    let revoked = try await AccessAdministration(store: a.store, keys: keysA).revokeKey(
      issued.token.keyID, by: AccessControl.localOperator, origin: .cli)
    let revokedAt = revoked.published.seq
    await waitUntil("node b applied the revocation") { await b.store.lastSeq >= revokedAt }
    #expect(throws: AccessRefused.self) { try gateA.authenticate(headers) }
    #expect(throws: AccessRefused.self) { try gateB.authenticate(headers) }
    // Gone from the table, and a node started now does not know it either.
    #expect(try PostgresKeyHashes(location: location).load()[issued.token.keyID] == nil)

    following.stop()
    await a.stop()
    await b.stop()
  }

  @Test func anIdempotencyKeyUsedOnOneNodeAnswersTheSameOnTheOther() async throws {
    let location = try freshLog()
    let a = try await Node(location)
    let b = try await Node(location)
    let first = try await a.store.send(
      .sendMessage(.init(query: "once")), origin: .webhook, idempotencyKey: "order-17")
    // Node b has not followed a yet: its append reads what a logged before deciding.
    await #expect(throws: StoreError.duplicate(seq: first.seq)) {
      try await b.store.send(
        .sendMessage(.init(query: "once")), origin: .webhook, idempotencyKey: "order-17")
    }
    #expect(await b.store.lastSeq == first.seq)
    #expect(await b.store.seq(forIdempotencyKey: "order-17") == first.seq)
    await a.stop()
    await b.stop()
  }

  // MARK: Subscribers

  static let lease: Int64 = 30_000

  func service(
    _ store: Store, subscribers: SubscriberFile, leases: PostgresDeliveryLeases,
    wrapped: (any DeliveryLeases)? = nil, transport: RecordingTransport, clock: ManualTimeSource
  ) -> DeliveryService {
    DeliveryService(
      feed: store.feed, registry: subscribers, cursors: leases, leases: wrapped ?? leases,
      transport: { _ in transport }, clock: clock,
      policy: DeliveryPolicy(
        jitter: 0, timeout: 60, targets: TargetPolicy(allowsPrivateTargets: true)))
  }

  /// Without the other node reading the subscribers again, it would wait for a sleeper that
  /// never comes: the time limit turns that into a failure.
  @Test(.hangLimit)
  func aSubscriberRegisteredOnOneNodeIsDeliveredByTheOtherWhenTheFirstDies() async throws {
    let location = try freshLog()
    let node = try await Node(location, every: 0)
    let store = node.store
    let clock = ManualTimeSource()
    let transport = RecordingTransport()
    let pgA = try PostgresDeliveryLeases(location: location, node: 1, duration: Self.lease)
    let pgB = try PostgresDeliveryLeases(location: location, node: 2, duration: Self.lease)
    let leasesA = PostgresDeliveryTests.KillableLeases(pgA)
    let a = service(
      store, subscribers: try SubscriberFile(storage: PostgresSubscribers(location: location)),
      leases: pgA, wrapped: leasesA, transport: transport, clock: clock)
    let b = service(
      store, subscribers: try SubscriberFile(storage: PostgresSubscribers(location: location)),
      leases: pgB, transport: transport, clock: clock)
    let lost = Mutex<[String]>([])
    a.warnings.send { message in lost.withLock { $0.append(message) } }
    a.start()
    b.start()
    // Each node reads the subscribers again at every renewal period.
    await clock.waitForSleepers(count: 2)
    #expect(b.statuses(lastSeq: 0).isEmpty)

    try a.register(
      Subscriber(
        id: "hook", url: "http://127.0.0.1:9/hook", events: [],
        secret: PostgresDeliveryTests.secret, after: 0), lastSeq: 0)
    await clock.waitForSleepers(count: 3)
    try await node.rate(1)
    await transport.waitForRequests(2)
    // Node b learns of it at the next renewal, and stands by: a holds its lease.
    await clock.advance(by: .milliseconds(Self.lease / 3))
    await clock.waitForSleepers(count: 4)
    #expect(b.statuses(lastSeq: 2).map(\.id) == ["hook"])
    #expect(b.statuses(lastSeq: 2).first?.phase == "standby")
    await waitUntil("node a saved its cursor at 2") { pgA.cursor("hook")?.delivered == 2 }

    // Node a dies; once its lease expires node b delivers from a's cursor, and a's operators
    // hear that its lease could not be renewed.
    leasesA.kill()
    for _ in 0..<4 {
      await clock.advance(by: .milliseconds(Self.lease / 3))
      await clock.waitForSleepers(count: 4)
    }
    try await node.rate(1)
    await transport.waitForRequests(4)
    #expect(transport.seqs == [1, 2, 3, 4])
    #expect(b.statuses(lastSeq: 4).first?.phase != "standby")
    #expect(lost.withLock { $0 }.contains { $0.contains("cannot renew the delivery lease") })

    await a.shutdown()
    await b.shutdown()
    store.feed.close()
    await node.stop()
    pgA.close()
    pgB.close()
  }

  @Test func aNodeThatLosesItsLeaseToAnotherSaysSoInTheOperatorsLog() async throws {
    let location = try freshLog()
    let node = try await Node(location, every: 0)
    let clock = ManualTimeSource()
    let transport = RecordingTransport()
    let pgA = try PostgresDeliveryLeases(location: location, node: 1, duration: Self.lease)
    let pgB = try PostgresDeliveryLeases(location: location, node: 2, duration: Self.lease)
    let subscribers = try SubscriberFile(storage: PostgresSubscribers(location: location))
    try subscribers.add(
      Subscriber(
        id: "hook", url: "http://127.0.0.1:9/hook", events: [],
        secret: PostgresDeliveryTests.secret, after: 0))
    let a = service(
      node.store, subscribers: subscribers, leases: pgA, transport: transport, clock: clock)
    let said = Mutex<[String]>([])
    a.warnings.send { message in said.withLock { $0.append(message) } }
    a.start()
    await clock.waitForSleepers(count: 2)
    #expect(a.statuses(lastSeq: 0).first?.phase != "standby")
    // Another node takes the lease (as after a's lease expired while a stalled).
    let taken = try execute(
      location,
      "UPDATE susi_delivery_leases SET holder = 2, expires = $1 WHERE subscriber = 'hook'",
      [.int(Int(clock.millisecondsSince1970() + 10 * Self.lease))])
    #expect(taken.affected == 1)
    await clock.advance(by: .milliseconds(Self.lease / 3))
    await clock.waitForSleepers(count: 2)
    #expect(a.statuses(lastSeq: 0).first?.phase == "standby")
    #expect(
      said.withLock { $0 }.contains { $0.contains("lost the delivery lease on subscriber 'hook'") })
    await a.shutdown()
    node.store.feed.close()
    await node.stop()
    pgA.close()
    pgB.close()
  }
}
