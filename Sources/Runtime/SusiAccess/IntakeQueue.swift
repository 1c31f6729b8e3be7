public import SusiStore
import Synchronization

/// Gathers the intents an intake (`susi serve`'s `POST /actions`) receives while the store is busy and hands them to the
/// store together (`Store.sendCheckedBatch`): one turn of the store and one write to the log for
/// all of them, instead of one each. On a log that commits in groups (PostgreSQL), where
/// concurrent senders already share a commit, each intent is sent on its own.
///
/// Each sender queues its intent, then enters the store as it would alone. The first of them to
/// get its turn sends everything queued by then, its own intent and those of the senders still
/// waiting for the store; they find theirs answered when their turn comes. Alone, a request is
/// sent in its own turn at once; under load one turn covers about what arrived during the one
/// before, and no sender waits for anything but the store.
public final class IntakeQueue: Sendable {
  /// One queued intent and, once sent, what became of it (written and read only in turns of
  /// the store, which order them).
  final class Entry: @unchecked Sendable {
    let intent: CheckedIntent
    var result: Result<SentAction, SendRefusal>?

    init(_ intent: CheckedIntent) { self.intent = intent }
  }

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
  private let queued = Mutex<[Entry]>([])
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
    guard store.sendsBatchesTogether else {
      Task(executorPreference: executor) { answer(await self.send(checked)) }
      return
    }
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

  /// Sends `checked` with the others queued now; what `sendChecked` would return for it.
  public func send(_ checked: CheckedIntent) async -> Result<SentAction, SendRefusal> {
    guard store.sendsBatchesTogether else {
      let intent = checked.intent
      do throws(SendRefusal) {
        return .success(
          try await store.sendChecked(
            intent.action, origin: intent.origin, id: intent.id,
            idempotencyKey: intent.idempotencyKey, refusingWhenFull: checked.refusingWhenFull))
      } catch {
        return .failure(error)
      }
    }
    let entry = Entry(checked)
    queued.withLock { $0.append(entry) }
    return await store.sendQueued(self, answering: entry)
  }

  /// Everything queued so far, in order; the queue is left empty.
  func takeQueued() -> [Entry] {
    queued.withLock { queued in
      let entries = queued
      queued = []
      return entries
    }
  }
}

extension Store {
  /// One sender's turn: sends what is queued (unless an earlier turn sent it all) and returns
  /// what became of `entry`.
  fileprivate func sendQueued(_ queue: IntakeQueue, answering entry: IntakeQueue.Entry) async
    -> Result<SentAction, SendRefusal>
  {
    if entry.result == nil {
      let entries = queue.takeQueued()
      let results = await sendCheckedBatch(entries.map(\.intent))
      for (sent, result) in zip(entries, results) { sent.result = result }
    }
    return entry.result ?? .failure(.store(.logFailed("the intent was not sent")))
  }
}
