public import SusiCore

// Planned answers (reminders) outlive the run that received them, and belong to no one process:
// the answer that planned one is in the log, so every process on the log waits for it (those
// running when it was logged, and those started later, which schedule it again from the log).
// When it comes due, each tries to log the delivery; the log's append lock decides: the first
// to append wins, and the others, seeing that delivery in the log, stand down (Store.receive).
// No process waits for a planned answer it could not deliver itself, and one that stops simply
// leaves the delivery to those still running, or to the next to start.

/// What start-up did with an answer a previous run was still waiting to deliver.
public struct ResumedPlan: Equatable, Sendable {
  /// What became of it.
  public enum Fate: String, Equatable, Sendable {
    /// Still in the future: delivered when it is due.
    case rescheduled
    /// Due and not delivered (no susi was running then, unless others run beside this one),
    /// not long ago: delivered now.
    case deliveredLate
    /// Due too long ago to be worth delivering: closed as `requestFailed {kind: "expired"}`.
    case dropped
  }

  /// The seq of the answer that planned it (the request in flight).
  public var seq: Int
  /// The question it answers.
  public var query: String
  /// When it was (or is) due.
  public var due: Timestamp
  public var fate: Fate

  public init(seq: Int, query: String, due: Timestamp, fate: Fate) {
    self.seq = seq
    self.query = query
    self.due = due
    self.fate = fate
  }
}

extension Store {
  /// How late a planned answer may still be delivered: 12 hours. A reminder missed for longer
  /// (a laptop closed overnight and more) is dropped rather than delivered out of context.
  public static let plannedAnswerGraceMilliseconds: Int64 = 12 * 3600 * 1000

  /// Schedules the planned answers in flight when this process starts, reading the answer that
  /// planned each from the log: those still in the future when they are due, those at most
  /// `plannedAnswerGraceMilliseconds` overdue at once, older ones are closed as
  /// `requestFailed {kind: "expired"}` (origin `store`). Every process calls it once, after
  /// recovery, whether or not other processes share the log: each delivery or closing is logged
  /// only if no other process logged one first. A process alone on the log then calls
  /// `closeInterruptedRequests(keeping:)` with the seqs of the plans not dropped.
  /// Returns what became of each plan, and the events it logged.
  public func resumePlannedAnswers() throws(StoreError)
    -> (plans: [ResumedPlan], logged: [PublishedEvent])
  {
    let now = clock.now()
    var resumed: [ResumedPlan] = []
    var logged: [PublishedEvent] = []
    for (seq, request) in state.inFlight.sorted(by: { $0.key < $1.key })
    where request.isPlannedAnswer && !plannedJobs.contains(seq) {
      guard let next = request.plan.first,
        let planner = try? sink.history.events(after: seq - 1, limit: 1).first?.event,
        planner.seq == seq, case .messageReceived(let received) = planner.action
      else { continue }  // Not readable back: closed as interrupted like any other request.
      let message = Action.MessageReceived(
        query: received.query, answers: next.answers, skill: received.skill)
      let due = request.due ?? planner.at.adding(milliseconds: Int64(next.delayMilliseconds))
      let overdue = now.milliseconds(since: due)
      if overdue > Self.plannedAnswerGraceMilliseconds {
        let error = RequestError(
          kind: .expired,
          message:
            "the answer planned for \(due.rfc3339) was not delivered: no susi was running then, and it is more than 12 hours late"
        )
        if let closed = try applyLogged(
          .requestFailed(Action.RequestFailed(cause: seq, error: error)), origin: .store,
          cause: seq, id: book.ledger.id(owedBy: seq), idempotencyKey: nil, onlyIfOwed: true)
        {
          logged.append(closed)
          resumed.append(ResumedPlan(seq: seq, query: received.query, due: due, fate: .dropped))
        }
        continue
      }
      plannedJobs.insert(seq)
      runner.start(
        .deliverLater(delayMilliseconds: Int(max(0, -overdue)), message: message), cause: seq
      ) { [weak self] result in
        await self?.receive(result, cause: seq)
      }
      resumed.append(
        ResumedPlan(
          seq: seq, query: received.query, due: due,
          fate: overdue > 0 ? .deliveredLate : .rescheduled))
    }
    return (resumed, logged)
  }

  /// Waits, like the process that planned it, for a planned answer another process logged: the
  /// answer `seq` planned `message`, due when the state says.
  func waitForPlannedAnswer(_ seq: Int, message: Action.MessageReceived) {
    guard !plannedJobs.contains(seq), let due = state.inFlight[seq]?.due else { return }
    let left = max(0, due.milliseconds - clock.now().milliseconds)
    plannedJobs.insert(seq)
    runner.start(
      .deliverLater(delayMilliseconds: Int(clamping: left), message: message), cause: seq
    ) { [weak self] result in
      await self?.receive(result, cause: seq)
    }
  }

  /// Whether this process waits to deliver the answer planned by event `seq` (so it comes, from
  /// here or from another process, without anyone else's help).
  public func waitsToDeliver(planned seq: Int) -> Bool { plannedJobs.contains(seq) }

  /// True while a request this process sent (or a result chained to one) still owes an answer
  /// that is coming now; planned answers do not count, nor does any other process's work.
  public var owesAnswersNow: Bool {
    ownOwed.contains { !(state.inFlight[$0]?.isPlannedAnswer ?? false) }
  }

  /// The planned answers still to come that this process's own requests planned (directly or
  /// through a chain), by the seq of the answer that planned each.
  public var ownPlannedAnswers: Set<Int> {
    ownOwed.filter { state.inFlight[$0]?.isPlannedAnswer ?? false }
  }
}

extension Store {
  /// Waits until no request this process sent owes an answer that is coming now (planned answers
  /// stay in the log, for whichever process runs when they are due), for at most `timeout`
  /// seconds; true when none does. Other processes' requests are theirs to wait for.
  public func drainAnswersNow(timeout: Double) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask { await self.answeredNow() }
      group.addTask {
        try? await Task.sleep(for: .milliseconds(Int64(max(0, timeout) * 1000)))
        return false
      }
      let settled = await group.next() ?? false
      group.cancelAll()
      return settled
    }
  }

  private func answeredNow() async -> Bool {
    while owesAnswersNow {
      let last = lastSeq
      await feed.waitForEvents(after: last)
      // Nothing new: the feed closed or the wait was cancelled.
      if lastSeq == last { return false }
    }
    return true
  }
}
