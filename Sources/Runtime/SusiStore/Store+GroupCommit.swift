import SusiCore

// Group commit. A sink whose appends return before they are committed (`commitsInGroups`, the
// log in PostgreSQL) lets the store log several events in one transaction: the store applies
// each event to its state as it is logged, so the next one can follow it, but holds back
// everything that would show it — readers, observers, its effects, and the sender's answer —
// until the sink has committed it. The commit runs once the actions waiting for the store have
// been logged (or when `groupLimit` events wait), so under load one commit covers many
// events, and alone an event is committed at once. If the commit fails, the held events are
// never shown, their senders get the error, and the store accepts nothing more.

/// Events logged but not committed yet, and the senders waiting for them.
struct HeldEvents {
  var events: [(published: PublishedEvent, effects: [Effect])] = []
  var waiters: [(seq: Int, continuation: CheckedContinuation<StoreError?, Never>)] = []
  var commitScheduled = false
  /// The first seq of a group whose commit failed: it and every later event are not in the log.
  var failedFrom: Int?
}

extension Store {
  /// The most events one commit covers: a group this large is committed at once.
  static let groupLimit = 1000

  /// Publishes `published` now, or, on a sink that commits in groups, once it is committed.
  func publishWhenCommitted(_ published: PublishedEvent, effects: [Effect]) {
    guard sink.commitsInGroups else {
      publish(published, effects: effects)
      return
    }
    held.events.append((published, effects))
    if held.events.count >= Self.groupLimit {
      commitHeld()
    } else if !held.commitScheduled {
      held.commitScheduled = true
      // Runs after the jobs already waiting for the store: their events join this group.
      Task { self.commitHeld() }
    }
  }

  /// Commits the held events, then publishes them in order and answers their senders.
  func commitHeld() {
    held.commitScheduled = false
    guard !held.events.isEmpty, failure == nil else { return }
    let events = held.events
    held.events = []
    do {
      try sink.commit()
    } catch {
      held.failedFrom = events[0].published.seq
      _ = fail(.logFailed("\(error)"))
      return
    }
    for event in events { publish(event.published, effects: event.effects) }
    let newest = events[events.count - 1].published.seq
    let waiters = held.waiters
    held.waiters = []
    for waiter in waiters {
      if waiter.seq <= newest {
        waiter.continuation.resume(returning: nil)
      } else {
        held.waiters.append(waiter)
      }
    }
  }

  /// Returns once the event `seq` is committed; throws when its commit failed.
  func committed(through seq: Int) async throws(StoreError) {
    if let failedFrom = held.failedFrom, seq >= failedFrom {
      throw failure ?? .logFailed("the event was not committed")
    }
    guard let first = held.events.first?.published.seq, seq >= first else { return }
    if let failure { throw failure }
    let error = await withCheckedContinuation { continuation in
      held.waiters.append((seq, continuation))
    }
    if let error { throw error }
  }

  /// Answers every sender still waiting for a commit with `error`.
  func releaseCommitWaiters(_ error: StoreError) {
    let waiters = held.waiters
    held.waiters = []
    if let first = held.events.first?.published.seq {
      held.failedFrom = min(held.failedFrom ?? first, first)
    }
    held.events = []
    for waiter in waiters { waiter.continuation.resume(returning: error) }
  }
}
