import Foundation
import SusiClock
import SusiCore
import SusiCoreTesting
import SusiEventLog
import SusiHTTPTesting
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// Following what the store logged: the feed's ring and the log read back, `events(after:)`
/// (catch-up, then live) and `results(of:)` (a chain of results until nothing is owed).
@Suite struct EventFollowingTests {
  private func event(_ seq: Int, cause: Int? = nil) -> PublishedEvent {
    let event = Event(
      seq: seq, at: Timestamp(milliseconds: 1_795_341_600_000), origin: .test, cause: cause,
      action: .setServer(.init(url: "embedded")))
    return PublishedEvent(event: event, line: event.encoded())
  }

  @Test func feedServesRecentEventsFromItsRingAndOlderOnesFromHistory() throws {
    let sink = MemoryEventSink()
    for seq in 1...10 { _ = try sink.append(event(seq).line) }
    let feed = EventFeed(history: MemoryEventHistory(sink), lastSeq: 10, capacity: 3)
    for seq in 11...20 {
      _ = try sink.append(event(seq).line)
      feed.publish(event(seq))
    }
    #expect(try feed.events(after: 17, limit: 10).map(\.seq) == [18, 19, 20])
    #expect(try feed.events(after: 0, limit: 5).map(\.seq) == [1, 2, 3, 4, 5])
    #expect(try feed.events(after: 12, limit: 3).map(\.seq) == [13, 14, 15])
    #expect(try feed.events(after: 20, limit: 3).isEmpty)
    #expect(try feed.events(after: 19, limit: 3).map(\.line) == [event(20).line])
  }

  @Test func historyIsNotReadPastWhatTheFeedHasShown() throws {
    // The log holds 1...8 (another node appended 6...8); the store has shown 1...5.
    let sink = MemoryEventSink()
    for seq in 1...8 { _ = try sink.append(event(seq).line) }
    let feed = EventFeed(history: MemoryEventHistory(sink), lastSeq: 3, capacity: 2)
    for seq in 4...5 { feed.publish(event(seq)) }
    #expect(try feed.events(after: 0, limit: 100).map(\.seq) == [1, 2, 3, 4, 5])
    #expect(try feed.events(after: 1, limit: 2).map(\.seq) == [2, 3])
  }

  @Test func ringKeepsWithinItsByteBoundAndFallsBackToHistory() throws {
    let sink = MemoryEventSink()
    let feed = EventFeed(
      history: MemoryEventHistory(sink), lastSeq: 0, capacity: 100,
      maximumBytes: event(1).line.count * 2 + 10)
    for seq in 1...10 {
      _ = try sink.append(event(seq).line)
      feed.publish(event(seq))
    }
    // Only the newest two fit, but every event is still readable.
    #expect(try feed.events(after: 0, limit: 100).map(\.seq) == Array(1...10))
    #expect(try feed.events(after: 8, limit: 100).map(\.seq) == [9, 10])
  }

  @Test func waitingReaderWakesOnTheNextEventAndOnCancel() async throws {
    let feed = EventFeed(history: MemoryEventHistory(MemoryEventSink()), lastSeq: 0)
    async let woke: Void = feed.waitForEvents(after: 0)
    feed.publish(event(1))
    await woke
    let waiting = Task { await feed.waitForEvents(after: 1) }
    waiting.cancel()
    await waiting.value
    await feed.waitForEvents(after: 0)  // already there: returns at once
  }

  @Test func logHistoryReadsCheckedLinesAndFindsLateSeqs() throws {
    let path = TestScratch.root
      .appendingPathComponent("susi-following-\(UUID().uuidString).jsonl").path
    let writer = try EventLogWriter(path: path, options: .init(fsync: .never, firstSeq: nil))
    var lines: [[UInt8]] = []
    for seq in 1...1000 {
      lines.append(try writer.appendLine(event(seq, cause: seq % 2 == 0 ? seq - 1 : nil).line))
    }
    try writer.close()
    // A line still being written is not read.
    let handle = try #require(FileHandle(forWritingAtPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(#"{"v":2,"seq":1001,"at""#.utf8))
    try handle.close()

    let history = LogHistory(path: path)
    let first = try history.events(after: 0, limit: 3)
    #expect(first.map(\.seq) == [1, 2, 3])
    #expect(first[1].event.cause == 1)
    #expect(first[0].line == lines[0])
    #expect(try history.events(after: 997, limit: 10).map(\.seq) == [998, 999, 1000])
    // Now from the remembered offsets.
    #expect(try history.events(after: 640, limit: 2).map(\.line) == [lines[640], lines[641]])
    #expect(try history.events(after: 1000, limit: 2).isEmpty)
  }

  @Test func logHistoryRefusesADamagedLine() throws {
    let path = TestScratch.root
      .appendingPathComponent("susi-following-\(UUID().uuidString).jsonl").path
    let writer = try EventLogWriter(path: path, options: .init(fsync: .never, firstSeq: nil))
    for seq in 1...3 { _ = try writer.appendLine(event(seq).line) }
    try writer.close()
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let second = bytes.firstIndex(of: 0x0A)! + 1
    let at = bytes[second...].firstIndex(of: UInt8(ascii: "e"))!
    bytes[at] = UInt8(ascii: "f")  // the checksum no longer matches
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    #expect(throws: HistoryError.self) { try LogHistory(path: path).events(after: 0, limit: 10) }
  }

  @Test func eventsAfterCatchesUpThenFollowsLive() async throws {
    let store = Store(
      sink: MemoryEventSink(), runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    for _ in 0..<3 { try await store.send(.loadGroups(.init()), origin: .test) }
    var events = store.events(after: 1).makeAsyncIterator()
    #expect(try await events.next()?.seq == 2)
    #expect(try await events.next()?.seq == 3)
    let live = Task { try await events.next()?.seq }
    try await store.send(.loadGroups(.init()), origin: .test)
    #expect(try await live.value == 4)
    await store.close()
  }

  @Test func aBatchHandsOutWhatIsReadyAndWaitsOnlyAsAsked() async throws {
    let store = Store(
      sink: MemoryEventSink(), runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    for _ in 0..<5 { try await store.send(.loadGroups(.init()), origin: .test) }
    var events = store.events(after: 1).makeAsyncIterator()
    #expect(try await events.nextBatch(limit: 3)?.map(\.seq) == [2, 3, 4])
    #expect(try await events.nextBatch(limit: 3, waiting: .no)?.map(\.seq) == [5])
    #expect(try await events.nextBatch(limit: 3, waiting: .no)?.isEmpty == true)
    // A deadline that has passed ends the wait with an empty batch.
    #expect(try await events.nextBatch(limit: 3, waiting: .until {})?.isEmpty == true)
    #expect(events.cursor == 5)
    await store.close()
    #expect(try await events.nextBatch(limit: 3) == nil)
  }

  @Test func forwardingCatchesUpThenForwardsEachEventAsItIsLoggedUntilStopped() async throws {
    let store = Store(
      sink: MemoryEventSink(), runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    for _ in 0..<3 { try await store.send(.loadGroups(.init()), origin: .test) }
    let seen = Mutex<[Int]>([])
    let forwarding = EventForwarding(store.events(after: 1)) { event in
      seen.withLock { $0.append(event.seq) }
    }
    #expect(seen.withLock { $0 } == [2, 3])
    try await store.send(.loadGroups(.init()), origin: .test)
    // Forwarded inside the store's turn: there by the time `send` returns.
    #expect(seen.withLock { $0 } == [2, 3, 4])
    forwarding.stop()
    try await store.send(.loadGroups(.init()), origin: .test)
    #expect(seen.withLock { $0 } == [2, 3, 4])
    await store.close()
  }

  @Test func eventsAfterEndsWhenTheStoreCloses() async throws {
    let store = Store(
      sink: MemoryEventSink(), runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    let reader = Task {
      var seqs: [Int] = []
      for try await event in store.events(after: 0) { seqs.append(event.seq) }
      return seqs
    }
    try await store.send(.loadGroups(.init()), origin: .test)
    await store.close()
    #expect(try await reader.value == [1])
  }

  @Test func resultsFollowAChainUntilNothingIsOwed() async throws {
    let runner = ManualRunner()
    let store = Store(
      sink: MemoryEventSink(), runner: runner, clock: ManualTimeSource(ReducerTester.epoch))
    let groups = try await store.send(.loadGroups(.init()), origin: .test)
    let other = try await store.send(.loadGroups(.init()), origin: .test)
    let collected = Task {
      await store.collectResults(of: groups.seq) { await Task.never() }
    }
    // Another intent's result is not part of the chain.
    await runner.deliver(.groupsLoaded(.init(groups: ["A"])), for: other.seq)
    await runner.deliver(.groupsLoaded(.init(groups: ["B"])), for: groups.seq)
    let (events, settled) = await collected.value
    #expect(settled)
    #expect(events.map(\.event.cause) == [groups.seq])
    #expect(await store.state.groups == ["B"])
    await store.close()
  }

  @Test func collectingStopsAtTheDeadlineWithWhatItHas() async throws {
    let store = Store(
      sink: MemoryEventSink(), runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    let sent = try await store.send(.loadGroups(.init()), origin: .test)
    let (events, settled) = await store.collectResults(of: sent.seq) {}
    #expect(!settled)
    #expect(events.isEmpty)
    await store.close()
  }

  @Test func anIntentRefusedAtOnceHasItsRejectionAsResult() async throws {
    let store = Store(
      sink: MemoryEventSink(), runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    let sent = try await store.send(.sendMessage(.init(query: "")), origin: .test)
    let (events, settled) = await store.collectResults(of: sent.seq) { await Task.never() }
    #expect(settled)
    #expect(events.map(\.event.action.type) == [.actionRejected])
    await store.close()
  }
}

extension Task where Success == Never, Failure == Never {
  /// Waits until the task is cancelled.
  static func never() async {
    let stream = AsyncStream<Void> { _ in }
    for await _ in stream {}
  }
}
