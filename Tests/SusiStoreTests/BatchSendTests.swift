import SusiClock
import SusiCore
import SusiCoreTesting
import SusiJSON
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// `Store.sendBatch`: intents sent together are logged as if sent one by one, in one write.
@Suite struct BatchSendTests {
  /// A rating the reducer refuses at once (a result in the same turn), an intent with an effect,
  /// one with an idempotency key, and the same key again.
  private let intents = [
    BatchedIntent(
      action: .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 9)), origin: .test,
      id: "a"),
    BatchedIntent(action: .loadGroups(.init()), origin: .test, id: "b"),
    BatchedIntent(action: .loadGroups(.init()), origin: .test, idempotencyKey: "k"),
    BatchedIntent(action: .loadGroups(.init()), origin: .test, idempotencyKey: "k"),
  ]

  @Test func logsTheSameLinesAsSendingTheIntentsOneByOne() async throws {
    let oneByOne = MemoryEventSink()
    let singleRunner = ManualRunner()
    let single = Store(
      sink: oneByOne, runner: singleRunner, clock: ManualTimeSource(ReducerTester.epoch))
    for intent in intents {
      _ = try? await single.send(
        intent.action, origin: intent.origin, id: intent.id, idempotencyKey: intent.idempotencyKey)
    }
    let together = MemoryEventSink()
    let runner = ManualRunner()
    let store = Store(sink: together, runner: runner, clock: ManualTimeSource(ReducerTester.epoch))
    #expect(store.sendsBatchesTogether)
    let results = await store.sendBatch(intents, admit: { _ in true })
    #expect(together.lines == oneByOne.lines)
    #expect(together.lines.count == 4)
    let seqs = results.map { try? $0.get().seq }
    #expect(seqs == [1, 3, 4, nil])
    guard case .failure(.store(.duplicate(seq: 4))) = results[3] else {
      Issue.record("the reused key is not refused as a duplicate of event 4: \(results[3])")
      return
    }
    #expect(try results[0].get().line == together.lines[0])
    #expect(runner.effects.map(\.cause) == singleRunner.effects.map(\.cause))
    #expect(runner.effects.map(\.effect) == singleRunner.effects.map(\.effect))
    #expect(Set(runner.effects.map(\.cause)) == [3, 4])
    #expect(await store.lastSeq == 4)
  }

  @Test func appendsNothingForAnIntentTheCheckRefusesAndTheNextSeesTheOnesBefore() async throws {
    let sink = MemoryEventSink()
    let store = Store(
      sink: sink, runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    var seen: [Int] = []
    let results = await store.sendBatch(
      intents,
      admit: { index in index != 1 },
      applied: { index in seen.append(index) })
    #expect(seen == [0, 2])
    guard case .failure(.refused) = results[1] else {
      Issue.record("the refused intent was logged: \(results[1])")
      return
    }
    #expect(sink.lines.count == 3)
    #expect(try Event.decode(sink.lines[2]).idempotencyKey == "k")
  }

  @Test func whenTheLogFailsEveryIntentOfTheBatchIsRefusedAndTheStoreStops() async throws {
    let store = Store(
      sink: FailingBatchSink(), runner: ManualRunner(),
      clock: ManualTimeSource(ReducerTester.epoch))
    let results = await store.sendBatch(intents, admit: { _ in true })
    for result in results {
      guard case .failure(.store(.logFailed)) = result else {
        Issue.record("an intent was answered although the log failed: \(result)")
        continue
      }
    }
    await #expect(throws: StoreError.self) {
      try await store.send(.loadGroups(.init()), origin: .test)
    }
  }

  @Test func aSnapshotDueInsideABatchSeesItsRecordAlreadyWritten() async throws {
    let sink = MemoryEventSink()
    let destination = RecordingSnapshots(sink: sink)
    let store = Store(
      sink: sink, runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    await store.keepSnapshots(SnapshotKeeper(destination: destination, every: 2, newestSeq: 0))
    // The refused rating and its rejection are seqs 1 and 2: the snapshot is due after 2, with
    // two more intents of the batch still to come.
    _ = await store.sendBatch(intents, admit: { _ in true })
    var written = destination.written.makeAsyncIterator()
    guard let first = await written.next() else {
      Issue.record("no snapshot was written")
      return
    }
    #expect(first.seq == 2)
    #expect(first.end == 2)
    #expect(first.line == sink.lines[1])
  }
}

extension BatchSendTests {
  /// A store over a counting log and a manual runner, and an executor standing for the HTTP
  /// client's event loop: the one thread replies are delivered on.
  fileprivate static func storeOnOneThread() -> (
    GroupCommitTests.QueueExecutor, ManualRunner, CountingBatchSink, Store
  ) {
    let runner = ManualRunner()
    let sink = CountingBatchSink()
    let store = Store(sink: sink, runner: runner, clock: ManualTimeSource(ReducerTester.epoch))
    return (GroupCommitTests.QueueExecutor(), runner, sink, store)
  }

  /// As the replies one turn of the HTTP client's event loop reads come in: their results are
  /// logged with one append, in the order delivered, and a follower gets them in one call.
  @Test func resultsDeliveredTogetherAreLoggedInOneWriteAndForwardedTogether() async throws {
    let (executor, runner, sink, store) = Self.storeOnOneThread()
    let intents = (0..<3).map { _ in BatchedIntent(action: .loadGroups(.init()), origin: .test) }
    _ = await store.sendBatch(intents, admit: { _ in true })
    let forwarded = Mutex<[[Int]]>([])
    let forwarding = EventForwarding(
      store.events(after: 3),
      toBatches: { events in forwarded.withLock { $0.append(events.map(\.seq)) } })
    defer { forwarding.stop() }
    let appendsBefore = sink.appends
    // Delivered by tasks that all wait to run on the one thread, as replies read in one turn.
    await Task(executorPreference: executor) {
      await withTaskGroup(of: Void.self) { group in
        for cause in [2, 1, 3] {
          group.addTask {
            await runner.deliver(.groupsLoaded(.init(groups: ["G\(cause)"])), for: cause)
          }
        }
      }
    }.value
    #expect(sink.appends - appendsBefore == 1)
    #expect(forwarded.withLock { $0 } == [[4, 5, 6]])
    let causes = try sink.memory.lines.dropFirst(3).map { try Event.decode($0).cause }
    #expect(causes == [2, 1, 3])
    #expect(await store.hasPendingResults(for: [1, 2, 3]) == false)
  }
}

extension BatchSendTests {
  /// Intents sent while delivered results wait to be logged take them along: one write, the
  /// results first (they were delivered first), and the results' deliverer logs nothing more.
  @Test func intentsSentWhileResultsWaitAreLoggedInTheSameWriteAfterThem() async throws {
    let (executor, runner, sink, store) = Self.storeOnOneThread()
    let intent = BatchedIntent(action: .loadGroups(.init()), origin: .test)
    _ = await store.sendBatch([intent, intent], admit: { _ in true })
    let appendsBefore = sink.appends
    // All on the one thread, in this order: the first delivery waits for the others of its
    // turn, and the intents come before it logs them.
    let results = await Task(executorPreference: executor) {
      await withTaskGroup(of: [Result<PublishedEvent, BatchRefusal>].self) { group in
        for cause in [2, 1] {
          group.addTask {
            await runner.deliver(.groupsLoaded(.init(groups: ["G\(cause)"])), for: cause)
            return []
          }
        }
        group.addTask { await store.sendBatch([intent], admit: { _ in true }) }
        return await group.reduce(into: []) { $0 += $1 }
      }
    }.value
    #expect(sink.appends - appendsBefore == 1)
    let logged = try sink.memory.lines.dropFirst(2).map { try Event.decode($0) }
    #expect(logged.map(\.cause) == [2, 1, nil])
    #expect(results.map { try? $0.get().seq } == [5])
    #expect(await store.hasPendingResults(for: [1, 2]) == false)
  }
}

/// A log in memory that counts its appends (a batch counts once).
private final class CountingBatchSink: EventSink {
  let memory = MemoryEventSink()
  private let count = Mutex(0)

  var appends: Int { count.withLock { $0 } }

  func append(_ record: [UInt8]) throws -> [UInt8] {
    count.withLock { $0 += 1 }
    return try memory.append(record)
  }

  func appendBatch<T>(_ body: (_ appendedByOthers: [[UInt8]], _ batch: AppendBatch) throws -> T)
    throws -> T
  {
    count.withLock { $0 += 1 }
    return try memory.appendBatch(body)
  }

  var batchesAppends: Bool { true }
  func sync() throws {}
  func close() {}
  var history: any EventHistory { memory.history }
}

/// Records the snapshots a keeper writes: the seq each ends at, the record it names, and how
/// many records the log held when it was taken.
private final class RecordingSnapshots: SnapshotDestination {
  let sink: MemoryEventSink
  let written: AsyncStream<(seq: Int, line: [UInt8]?, end: Int)>
  private let continuation: AsyncStream<(seq: Int, line: [UInt8]?, end: Int)>.Continuation

  init(sink: MemoryEventSink) {
    self.sink = sink
    (written, continuation) = AsyncStream.makeStream()
  }

  var logEnd: Int { sink.lines.count }

  func write(_ book: Recovered, line: [UInt8]?, end: Int) throws {
    continuation.yield((book.lastSeq, line, end))
  }
}

/// A sink that batches but whose writes fail.
private struct FailingBatchSink: EventSink {
  struct WriteFailed: Error {}
  func append(_ record: [UInt8]) throws -> [UInt8] { throw WriteFailed() }
  func sync() throws {}
  func close() {}
  var history: any EventHistory { MemoryEventHistory(MemoryEventSink()) }
  var batchesAppends: Bool { true }
}
