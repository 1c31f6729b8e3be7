public import SusiStore
import Synchronization

/// Gathers the intents an intake (`susi serve`'s `POST /actions`, `susi web`) receives while
/// the store is busy and hands them to the store together (`Store.sendCheckedBatch`): one turn
/// of the store and one write to the log (or one commit, on a log that commits in groups) for
/// all of them, instead of one each.
///
/// Intents wait in lanes, one per executor (an event loop's, or the shared pool's for `send`).
/// One task per lane sends what waits in it, batch after batch: alone, a request is sent at
/// once; under load one batch covers about what arrived during the one before.
public final class IntakeQueue: Sendable {
  /// One intent taken by `submit` and what to do with what became of it.
  struct Submitted: Sendable {
    let intent: CheckedIntent
    let answer: @Sendable (Result<SentAction, SendRefusal>) -> Void
  }

  /// The intents submitted for one executor (an event loop), and whether a task of it is
  /// sending them.
  struct Lane {
    var waiting: [Submitted] = []
    var sending = false
  }

  public let store: Store
  private let lanes = Mutex<[ObjectIdentifier: Lane]>([:])

  public init(store: Store) { self.store = store }

  /// Sends `checked` without waiting: `answer` is called with what `sendChecked` would return
  /// for it, from a task preferring `executor`.
  ///
  /// What is submitted for one executor is sent by one task at a time, every intent waiting by
  /// the time it has its turn of the store in one batch: on an event loop, the requests it read
  /// in one turn cost one task and one turn of the store together, not one each. Between
  /// batches the task lets the loop do its other work first (and read more requests).
  public func submit(
    _ checked: CheckedIntent, on executor: any TaskExecutor,
    answer: @escaping @Sendable (Result<SentAction, SendRefusal>) -> Void
  ) {
    let lane = ObjectIdentifier(executor)
    let starts = lanes.withLock { lanes in
      lanes[lane, default: Lane()].waiting.append(Submitted(intent: checked, answer: answer))
      if lanes[lane]!.sending { return false }
      lanes[lane]!.sending = true
      return true
    }
    if starts {
      Task(executorPreference: executor) { await self.sendSubmitted(lane) }
    }
  }

  /// Sends what waits in `lane`, batch after batch, until it is empty.
  private func sendSubmitted(_ lane: ObjectIdentifier) async {
    var batch = takeSubmitted(lane)
    while !batch.isEmpty {
      let results = await store.sendCheckedBatch(batch.map(\.intent))
      for (submitted, result) in zip(batch, results) { submitted.answer(result) }
      let more = lanes.withLock { lanes in
        if lanes[lane]?.waiting.isEmpty ?? true {
          lanes[lane]?.sending = false
          return false
        }
        return true
      }
      guard more else { return }
      await Task.yield()
      batch = takeSubmitted(lane)
    }
  }

  /// What waits in `lane`, which is left empty; when nothing waits, its task is done.
  private func takeSubmitted(_ lane: ObjectIdentifier) -> [Submitted] {
    lanes.withLock { lanes -> [Submitted] in
      guard var entry = lanes[lane] else { return [] }
      let waiting = entry.waiting
      entry.waiting = []
      entry.sending = !waiting.isEmpty
      lanes[lane] = entry
      return waiting
    }
  }

  /// Sends `checked` with the others waiting now (on the shared pool's lane); what
  /// `sendChecked` would return for it.
  public func send(_ checked: CheckedIntent) async -> Result<SentAction, SendRefusal> {
    await withCheckedContinuation { continuation in
      submit(checked, on: globalConcurrentExecutor) { continuation.resume(returning: $0) }
    }
  }
}
