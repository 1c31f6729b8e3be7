import SusiAccess
import SusiStore
import Synchronization

/// Gathers the intents `POST /actions` receives at about the same time and hands them to the
/// store together (`Store.sendCheckedBatch`): one turn of the store and one write to the log for
/// all of them, instead of one each. On a log that commits in groups (PostgreSQL), where
/// concurrent senders already share a commit, each intent is sent on its own.
///
/// The first sender leads: it lets the handlers already waiting to run on its thread add
/// theirs (one `Task.yield()`), then sends everything queued. Senders that come while a batch is
/// in the store wait; when it returns, the leader answers them and hands the lead to the first
/// sender still waiting, whose batch is everything queued meanwhile. Under load a batch holds
/// about what arrived during the previous one; alone, a request is sent at once.
final class IntakeQueue: Sendable {
  private enum Turn {
    case answered(Result<SentAction, SendRefusal>)
    case lead
  }

  private struct Waiting {
    var intent: CheckedIntent
    var continuation: CheckedContinuation<Turn, Never>
  }

  private struct Queue {
    var waiting: [Waiting] = []
    var leading = false
  }

  let store: Store
  private let queue = Mutex(Queue())

  init(store: Store) { self.store = store }

  /// Sends `intent` with the others queued now; what `sendChecked` would return for it.
  func send(_ intent: CheckedIntent) async -> Result<SentAction, SendRefusal> {
    // A log that commits in groups gathers concurrent senders itself: each is sent on its own.
    guard store.sendsBatchesTogether else {
      do throws(SendRefusal) {
        return .success(
          try await store.sendChecked(
            intent.action, origin: intent.origin, id: intent.id,
            idempotencyKey: intent.idempotencyKey, refusingWhenFull: intent.refusingWhenFull))
      } catch {
        return .failure(error)
      }
    }
    let leads = queue.withLock { queue in
      if queue.leading { return false }
      queue.leading = true
      return true
    }
    if !leads {
      let turn = await withCheckedContinuation { continuation in
        let leadsNow = queue.withLock { queue in
          if queue.leading {
            queue.waiting.append(Waiting(intent: intent, continuation: continuation))
            return false
          }
          queue.leading = true
          return true
        }
        if leadsNow { continuation.resume(returning: .lead) }
      }
      if case .answered(let result) = turn { return result }
    }
    // Handlers already queued on this thread add their intents before the batch goes.
    await Task.yield()
    let others = queue.withLock { queue in
      let waiting = queue.waiting
      queue.waiting = []
      return waiting
    }
    let results = await store.sendCheckedBatch([intent] + others.map(\.intent))
    for (waiting, result) in zip(others, results.dropFirst()) {
      waiting.continuation.resume(returning: .answered(result))
    }
    let next = queue.withLock { queue -> Waiting? in
      guard !queue.waiting.isEmpty else {
        queue.leading = false
        return nil
      }
      return queue.waiting.removeFirst()
    }
    next?.continuation.resume(returning: .lead)
    return results[0]
  }
}
