import Foundation
import SusiClock
import SusiCore
import SusiCoreTesting
import SusiEventLog
import SusiHTTPTesting
import SusiStore
import SusiTesting
import Testing

/// Several stores (as in several susi processes) on one log: each appends after catching up on
/// the others, follows them between appends, and never runs another store's effects.
@Suite struct SharedStoreTests {
  /// One process's view of the shared log.
  struct Peer {
    let store: Store
    let runner: ManualRunner
    let opened: LogRecovery.Opened

    init(log: String, clock: ManualTimeSource) throws {
      opened = try LogRecovery.open(
        path: log, fsync: .never, environment: [LogRecovery.intervalVariable: "0"], shared: true)
      runner = ManualRunner()
      store = Store(
        sink: FileEventSink(writer: opened.writer), runner: runner, clock: clock,
        recovered: opened.recovered)
    }
  }

  private func logFolder() throws -> String {
    let folder = TestScratch.root
      .appendingPathComponent("susi-shared-store-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }

  @Test func twoStoresInterleaveContiguousSeqsAndBothEqualTheReplay() async throws {
    let folder = try logFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let log = folder + "/events.jsonl"
    let clock = ManualTimeSource(ReducerTester.epoch)
    let a = try Peer(log: log, clock: clock)
    let b = try Peer(log: log, clock: clock)
    #expect(a.opened.alone)
    #expect(!b.opened.alone)

    let groups = try await a.store.send(.loadGroups(.init()), origin: EventOrigin(rawValue: "a"))
    let asked = try await b.store.send(
      .sendMessage(.init(query: "hi")), origin: EventOrigin(rawValue: "b"))
    #expect(asked.seq == groups.seq + 1, "b caught up on a's intent before appending its own")
    await a.runner.deliver(.groupsLoaded(.init(groups: ["Knowledge"])), for: groups.seq)
    let answer = Action.MessageReceived(
      query: "hi", answers: [.answer(expression: "Hello!", language: nil, mood: nil)])
    await b.runner.deliver(.messageReceived(answer), for: asked.seq)
    _ = try await a.store.send(.loadGroups(.init()), origin: EventOrigin(rawValue: "a"))
    await a.store.catchUp()
    await b.store.catchUp()

    // Each store started only the effects of its own intents.
    #expect(a.runner.effects.map(\.cause) == [5])
    #expect(b.runner.effects.isEmpty)

    let records = try readRecords(log)
    #expect(records.map(\.seq) == Array(1...records.count))
    #expect(records.count == 5)
    var replayed = Recovered()
    try LogReplay.run(path: log, into: &replayed)
    #expect(await a.store.state == replayed.state)
    #expect(await b.store.state == replayed.state)
    #expect(await a.store.lastSeq == 5)
    #expect(await b.store.lastSeq == 5)
    #expect(await b.store.state.groups == ["Knowledge"])
    await a.store.close()
    await b.store.close()
  }

  @Test func anotherStoresEventsReachThisStoresFollowers() async throws {
    let folder = try logFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let log = folder + "/events.jsonl"
    let clock = ManualTimeSource(ReducerTester.epoch)
    let a = try Peer(log: log, clock: clock)
    let b = try Peer(log: log, clock: clock)
    var following = b.store.events(after: 0).makeAsyncIterator()
    let sent = try await a.store.send(.sendMessage(.init(query: "from a")), origin: .cli)
    // The follower runs on its own; catchUp is what it calls each interval.
    await b.store.catchUp()
    let seen = try await following.next()
    #expect(seen?.seq == sent.seq)
    #expect(seen?.line == sent.line)
    await a.store.close()
    await b.store.close()
  }

  @Test func aRunningFollowerPicksUpAnotherStoresEventsOnItsOwn() async throws {
    let folder = try logFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let log = folder + "/events.jsonl"
    let clock = ManualTimeSource(ReducerTester.epoch)
    let a = try Peer(log: log, clock: clock)
    let b = try Peer(log: log, clock: clock)
    await b.store.followOtherWriters(fallback: .milliseconds(5))
    var following = b.store.events(after: 0).makeAsyncIterator()
    let sent = try await a.store.send(.sendMessage(.init(query: "from a")), origin: .cli)
    let seen = try await following.next()
    #expect(seen?.seq == sent.seq)
    await a.store.close()
    await b.store.close()
  }

  @Test func anIdempotencyKeyUsedByAnotherStoreIsRefused() async throws {
    let folder = try logFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let log = folder + "/events.jsonl"
    let clock = ManualTimeSource(ReducerTester.epoch)
    let a = try Peer(log: log, clock: clock)
    let b = try Peer(log: log, clock: clock)
    let first = try await a.store.send(
      .loadGroups(.init()), origin: EventOrigin(rawValue: "a"), idempotencyKey: "k1")
    await #expect(throws: StoreError.duplicate(seq: first.seq)) {
      try await b.store.send(
        .loadGroups(.init()), origin: EventOrigin(rawValue: "b"), idempotencyKey: "k1")
    }
    #expect(try readRecords(log).count == 1)
    await a.store.close()
    await b.store.close()
  }

  @Test func onlyAStoreAloneOnTheLogClosesInterruptedRequests() async throws {
    let folder = try logFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let log = folder + "/events.jsonl"
    let clock = ManualTimeSource(ReducerTester.epoch)
    let a = try Peer(log: log, clock: clock)
    _ = try await a.store.send(.loadGroups(.init()), origin: EventOrigin(rawValue: "a"))
    // A second process starting now must leave a's request alone: a is alive and owns it.
    let b = try Peer(log: log, clock: clock)
    #expect(!b.opened.alone)
    #expect(await b.store.state.inFlight.count == 1)
    await a.store.close()
    await b.store.close()
    // Both gone: the next start is alone and closes the request nobody owns any more.
    let c = try Peer(log: log, clock: clock)
    #expect(c.opened.alone)
    let closed = try await c.store.closeInterruptedRequests()
    #expect(closed.count == 1)
    await c.store.close()
  }

  @Test func writingASnapshotLeavesAnotherLiveProcesssTemporaryFileAlone() async throws {
    let folder = try logFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let log = folder + "/events.jsonl"
    let a = try Peer(log: log, clock: ManualTimeSource(ReducerTester.epoch))
    _ = try await a.store.send(.loadGroups(.init()), origin: EventOrigin(rawValue: "a"))
    await a.store.close()
    let files = SnapshotFiles(logPath: log)
    // A snapshot another process is writing right now, and one a dead process left behind.
    let live = files.path(forSeq: 1) + ".\(getppid()).tmp"
    let dead = files.path(forSeq: 1) + ".2147483646.tmp"
    for path in [live, dead] { _ = FileManager.default.createFile(atPath: path, contents: Data()) }
    let checkpoint = try EventLogCheckpoint.ofRecord(
      endingAt: a.opened.writer.length, inLogAt: log, seq: 1, line: 1)
    try files.write(Snapshot(checkpoint: checkpoint, recovered: a.opened.recovered))
    #expect(FileManager.default.fileExists(atPath: live))
    #expect(!FileManager.default.fileExists(atPath: dead))
  }

  private func readRecords(_ path: String) throws -> [EventLogRecord] {
    let reader = try EventLogReader(path: path)
    var records: [EventLogRecord] = []
    while let record = try reader.next() { records.append(record) }
    return records
  }
}
