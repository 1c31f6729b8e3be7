import Dispatch
import SusiClock
import SusiCore
import SusiCoreTesting
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// A store on a sink that commits in groups shows an event to nobody (readers, observers, the
/// runner, its sender) before the sink has committed it, and a failed commit is shown to nobody.
@Suite struct GroupCommitTests {
  /// Keeps records in memory; `commit()` records what had been shown by then, and fails when
  /// told to.
  final class GroupSink: EventSink {
    struct Log {
      var appended: [[UInt8]] = []
      var committed = 0
      var commits = 0
      var shownAtCommit: [Int] = []
    }
    let log = Mutex(Log())
    let failing: Bool
    /// How many events had been shown when a commit began.
    let shown: @Sendable () -> Int

    init(failing: Bool = false, shown: @escaping @Sendable () -> Int) {
      self.failing = failing
      self.shown = shown
    }

    func append(_ record: [UInt8]) throws -> [UInt8] {
      log.withLock { $0.appended.append(record) }
      return record
    }

    var commitsInGroups: Bool { true }

    func commit() throws {
      let seen = shown()
      try log.withLock { log throws in
        log.shownAtCommit.append(seen)
        guard !failing else { throw CommitRefused() }
        log.commits += 1
        log.committed = log.appended.count
      }
    }

    func sync() throws {}
    func close() {}
    var history: any EventHistory { MemoryEventHistory(MemoryEventSink()) }
  }

  struct CommitRefused: Error {}

  /// A store on a `GroupSink`, with a reader that notes the seq of every event it is shown.
  struct Watched {
    final class Seen: Sendable {
      let seqs = Mutex<[Int]>([])
    }
    let seen = Seen()
    let sink: GroupSink
    let runner = ManualRunner()
    let store: Store
    let following: EventForwarding

    init(failing: Bool = false) {
      let seen = self.seen
      sink = GroupSink(failing: failing, shown: { seen.seqs.withLock { $0.count } })
      store = Store(sink: sink, runner: runner, clock: ManualTimeSource(ReducerTester.epoch))
      following = EventForwarding(store.events(after: 0)) { event in
        seen.seqs.withLock { $0.append(event.seq) }
      }
    }

    /// The seqs of the events the reader was shown, in order.
    var shown: [Int] { seen.seqs.withLock { $0 } }
  }

  /// Runs jobs on a queue of its own, which `key` marks.
  final class QueueExecutor: TaskExecutor {
    let key = DispatchSpecificKey<Bool>()
    private let queue = DispatchQueue(label: "group-commit-test")

    init() { queue.setSpecific(key: key, value: true) }

    func enqueue(_ job: consuming ExecutorJob) {
      let job = UnownedJob(job)
      let executor = asUnownedTaskExecutor()
      queue.async { job.runSynchronously(on: executor) }
    }
  }

  /// Notes, for each effect started, whether the store started it on the queue `key` marks.
  final class PlaceRunner: EffectsRunner {
    let key: DispatchSpecificKey<Bool>
    let onQueue = Mutex<[Bool]>([])

    init(key: DispatchSpecificKey<Bool>) { self.key = key }

    func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery) {
      let here = DispatchQueue.getSpecific(key: key) ?? false
      onQueue.withLock { $0.append(here) }
    }

    func waitUntilIdle(timeout: Double) async -> Bool { true }
    func shutdown() async {}
  }

  @Test func theSenderRunsItsGroupsCommitSoTheStoreGoesOnWhereTheSenderRuns() async throws {
    let executor = QueueExecutor()
    let runner = PlaceRunner(key: executor.key)
    let store = Store(
      sink: GroupSink(shown: { 0 }), runner: runner,
      clock: ManualTimeSource(ReducerTester.epoch))
    // As the HTTP server starts a request's handler: a task preferring its event loop.
    for _ in 0..<3 {
      try await Task(executorPreference: executor) {
        _ = try await store.send(.loadGroups(.init()), origin: .test)
      }.value
    }
    // The effect starts when the event is shown, after its commit: on the sender's executor,
    // not on a thread of the concurrency pool.
    let places = runner.onQueue.withLock { $0 }
    #expect(places.count >= 3 && places.allSatisfy { $0 }, "\(places)")
    await store.close()
  }

  @Test func anEventIsShownAndAnsweredOnlyAfterItsCommit() async throws {
    let watched = Watched()
    let (sink, runner, store) = (watched.sink, watched.runner, watched.store)
    defer { watched.following.stop() }

    let sent = try await store.send(.loadGroups(.init()), origin: .test)
    #expect(sent.seq == 1)
    let log = sink.log.withLock { $0 }
    #expect(log.commits == 1)
    #expect(log.committed == 1, "the sender is answered once its event is committed")
    #expect(log.shownAtCommit == [0], "nobody saw the event before its commit")
    #expect(watched.shown == [1])
    #expect(runner.effects.map(\.cause) == [1])
    await store.close()
  }

  @Test func aFailedCommitFailsItsSendersAndShowsTheEventToNobody() async throws {
    let watched = Watched(failing: true)
    let (sink, runner, store) = (watched.sink, watched.runner, watched.store)
    defer { watched.following.stop() }

    await #expect(throws: StoreError.self) {
      try await store.send(.loadGroups(.init()), origin: .test)
    }
    #expect(sink.log.withLock { $0.appended.count } == 1)
    #expect(watched.shown.isEmpty)
    #expect(runner.effects.isEmpty, "no effect starts for an event that is not in the log")
    // The store accepts nothing more.
    await #expect(throws: StoreError.self) {
      try await store.send(.loadGroups(.init()), origin: .test)
    }
    #expect(sink.log.withLock { $0.appended.count } == 1)
    await store.close()
  }

  @Test func concurrentSendersAreAllAnsweredAndTheirEventsShownInSeqOrder() async throws {
    let watched = Watched()
    let (sink, store) = (watched.sink, watched.store)
    defer { watched.following.stop() }
    let count = 50
    let answered = await withTaskGroup(of: Int?.self) { group in
      for n in 0..<count {
        group.addTask {
          try? await store.send(.sendMessage(.init(query: "q \(n)")), origin: .test).seq
        }
      }
      var seqs: [Int] = []
      for await seq in group { if let seq { seqs.append(seq) } }
      return seqs
    }
    #expect(answered.sorted() == Array(1...count))
    #expect(watched.shown == Array(1...count), "shown in seq order")
    let log = sink.log.withLock { $0 }
    #expect(log.committed == count, "every answered event is committed")
    await store.close()
  }

  @Test func aBatchIsCommittedOnceAndAnsweredOnlyAfterItsCommit() async throws {
    let watched = Watched()
    let (sink, runner, store) = (watched.sink, watched.runner, watched.store)
    defer { watched.following.stop() }
    // A rating the reducer refuses at once (its result follows it), an intent the check
    // refuses, and an idempotency key used twice.
    let intents = [
      BatchedIntent(
        action: .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 9)),
        origin: .test),
      BatchedIntent(action: .loadGroups(.init()), origin: .test),
      BatchedIntent(action: .loadGroups(.init()), origin: .test, idempotencyKey: "k"),
      BatchedIntent(action: .loadGroups(.init()), origin: .test, idempotencyKey: "k"),
    ]
    #expect(store.sendsBatchesTogether)
    let results = await store.sendBatch(intents, admit: { $0 != 1 })
    #expect(results.map { try? $0.get().seq } == [1, nil, 3, nil])
    guard case .failure(.refused) = results[1],
      case .failure(.store(.duplicate(seq: 3))) = results[3]
    else {
      Issue.record("refusals not as expected: \(results)")
      return
    }
    let log = sink.log.withLock { $0 }
    #expect(log.commits == 1, "one commit for the whole batch")
    #expect(log.committed == 3)
    #expect(log.shownAtCommit == [0], "nobody saw the batch before its commit")
    #expect(watched.shown == [1, 2, 3])
    #expect(runner.effects.map(\.cause) == [3])
    await store.close()
  }

  @Test func aFailedCommitFailsEveryIntentOfTheBatch() async throws {
    let sink = GroupSink(failing: true, shown: { 0 })
    let store = Store(
      sink: sink, runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    let intents = [
      BatchedIntent(action: .loadGroups(.init()), origin: .test),
      BatchedIntent(action: .loadGroups(.init()), origin: .test),
    ]
    let results = await store.sendBatch(intents, admit: { $0 == 0 })
    guard case .failure(.store) = results[0], case .failure(.refused) = results[1] else {
      Issue.record("the logged intent is not failed with its commit: \(results)")
      return
    }
    await store.close()
  }
}
