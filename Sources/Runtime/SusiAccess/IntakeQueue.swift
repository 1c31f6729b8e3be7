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

  public let store: Store
  private let queued = Mutex<[Entry]>([])

  public init(store: Store) { self.store = store }

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
