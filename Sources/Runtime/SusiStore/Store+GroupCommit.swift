import SusiCore

// Group commit. A sink whose appends return before they are committed (`commitsInGroups`, the
// log in PostgreSQL) lets the store log several events in one transaction: the store applies
// each event to its state as it is logged, so the next one can follow it, but holds back
// everything that would show it — readers, observers, its effects, and the sender's answer —
// until the sink has committed it. A commit runs off the store's turn: senders that come while
// it runs wait, and once it is done they are logged together and committed by the next one, so
// under load one commit covers about as many events as there are senders, and alone an event is
// committed at once. If a commit fails, its events are never shown, their senders get the
// error, and the store accepts nothing more.
//
// The sender whose event starts a group runs its commit, in its own task: when the commit
// returns, the store goes on where that sender runs (the thread serving its connection), as it
// does for a log file. A commit run by a task of its own would bring the store back on a thread
// of the concurrency pool, and every sender after it would hop between that thread and its own.
// Events no sender waits for (results the runner brings, the store's own) are committed by a
// task of their own.

/// Events logged but not committed yet, and the senders waiting for them.
struct HeldEvents {
  var events: [(published: PublishedEvent, effects: [Effect])] = []
  /// Senders waiting for their event's commit.
  var waiters: [(seq: Int, continuation: CheckedContinuation<StoreError?, Never>)] = []
  var commitScheduled = false
  /// True while a commit runs.
  var committing = false
  /// The first seq of the group being committed.
  var committingFrom: Int?
  /// Senders waiting for the commit that runs to end before they log their event.
  var gate: [CheckedContinuation<Void, Never>] = []
  /// The first seq of a group whose commit failed: it and every later event are not in the log.
  var failedFrom: Int?
  /// True when a catch-up was asked for while a commit ran: it runs once the commit ends.
  var catchUpOwed = false
  /// True while a sender (`Store.send`) logs its event: a commit its events need is then run by
  /// that sender (`commitAwaitsSender`), not by a task of its own.
  var senderLogging = false
  /// True when a commit is scheduled that the sender logging it runs (in `committed(through:)`).
  var commitAwaitsSender = false
}

extension Store {
  /// The most events one commit covers: senders wait while a group this large waits.
  static let groupLimit = 1000

  /// Publishes `published` now, or, on a sink that commits in groups, once it is committed.
  func publishWhenCommitted(_ published: PublishedEvent, effects: [Effect]) {
    guard sink.commitsInGroups else {
      publish(published, effects: effects)
      return
    }
    held.events.append((published, effects))
    scheduleCommit()
  }

  /// Starts a commit of the held events after the jobs already waiting for the store (their
  /// events join the group), unless one is scheduled or running. While a sender logs, that
  /// sender runs it (`committed(through:runningTheCommit:)`).
  private func scheduleCommit() {
    guard !held.commitScheduled, !held.committing, !held.events.isEmpty else { return }
    held.commitScheduled = true
    if held.senderLogging {
      held.commitAwaitsSender = true
    } else {
      Task { await self.commitHeld() }
    }
  }

  /// A sender is about to log its event (see `HeldEvents.senderLogging`).
  func senderLogs() {
    held.senderLogging = true
  }

  /// The sender has logged its event, or failed to: a commit left for it is run by a task of
  /// its own unless `willRun` (the sender then calls `committed(through:runningTheCommit:)`).
  func senderLogged(willRun: Bool) {
    held.senderLogging = false
    if !willRun && held.commitAwaitsSender {
      held.commitAwaitsSender = false
      Task { await self.commitHeld() }
    }
  }

  /// Before a sender logs its event: waits while a commit runs (the event joins the next
  /// group) or a full group waits for its commit.
  func waitForGroup() async {
    guard sink.commitsInGroups else { return }
    while failure == nil && (held.committing || held.events.count >= Self.groupLimit) {
      await withCheckedContinuation { held.gate.append($0) }
    }
  }

  /// Waits until no commit runs.
  func waitForCommitToEnd() async {
    while held.committing {
      await withCheckedContinuation { held.gate.append($0) }
    }
  }

  /// Commits the held events, then publishes them in order and answers their senders.
  func commitHeld() async {
    held.commitScheduled = false
    guard !held.committing, !held.events.isEmpty, failure == nil else { return }
    held.committing = true
    held.committingFrom = held.events[0].published.seq
    let events = held.events
    held.events = []
    let sink = self.sink
    // On a thread of its own, so the store goes on serving meanwhile.
    let refusal: (any Error)? = await Task.detached {
      do {
        try sink.commit()
        return nil
      } catch {
        return error
      }
    }.value
    held.committing = false
    held.committingFrom = nil
    if let refusal {
      held.failedFrom = min(held.failedFrom ?? Int.max, events[0].published.seq)
      _ = fail(.logFailed("\(refusal)"))
      openGate()
      return
    }
    if failure == nil {
      publish(events.map { $0.published }, effects: events.map { $0.effects })
    }
    let newest = events[events.count - 1].published.seq
    let waiters = held.waiters
    held.waiters = []
    for waiter in waiters {
      if waiter.seq <= newest {
        waiter.continuation.resume(returning: failure)
      } else {
        held.waiters.append(waiter)
      }
    }
    openGate()
    // Events logged while this commit ran (results the runner brought) go next.
    scheduleCommit()
    // After the senders the gate let through: when one of them opened a group, it read what
    // other nodes appended and the catch-up finds nothing to read.
    if held.catchUpOwed {
      held.catchUpOwed = false
      Task { self.catchUp() }
    }
  }

  private func openGate() {
    let gate = held.gate
    held.gate = []
    for sender in gate { sender.resume() }
  }

  /// Returns once the event `seq` is committed; throws when its commit failed. With
  /// `runningTheCommit`, from the sender that logged `seq` (see `senderLogged`), runs the commit
  /// scheduled meanwhile, if any, after the jobs already waiting for the store.
  func committed(through seq: Int, runningTheCommit: Bool = false) async throws(StoreError) {
    if runningTheCommit && held.commitAwaitsSender {
      held.commitAwaitsSender = false
      // The senders already waiting for the store log first: their events join the group.
      await Task.yield()
      await commitHeld()
    }
    if let failedFrom = held.failedFrom, seq >= failedFrom {
      throw failure ?? .logFailed("the event was not committed")
    }
    guard let first = held.committingFrom ?? held.events.first?.published.seq, seq >= first
    else { return }
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
    openGate()
  }
}
