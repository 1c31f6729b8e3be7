public import SusiCore

// Planned answers (reminders) outlive the run that received them: the answer that planned one
// is in the log, so a new run can schedule its delivery again.

/// What start-up did with an answer a previous run was still waiting to deliver.
public struct ResumedPlan: Equatable, Sendable {
  /// What became of it.
  public enum Fate: String, Equatable, Sendable {
    /// Still in the future: delivered when it is due.
    case rescheduled
    /// Due while susi was not running, not long ago: delivered now.
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

  /// Schedules again the planned answers a previous run was waiting to deliver, reading the
  /// answer that planned each from the log: those still in the future when they are due, those
  /// at most `plannedAnswerGraceMilliseconds` overdue at once, older ones are closed as
  /// `requestFailed {kind: "expired"}` (origin `store`). Call once, after recovery and before
  /// `closeInterruptedRequests(keeping:)`, passing it the seqs of the plans not dropped.
  /// Returns what became of each plan, and the events it logged.
  public func resumePlannedAnswers() throws(StoreError)
    -> (plans: [ResumedPlan], logged: [PublishedEvent])
  {
    let now = clock.now()
    var resumed: [ResumedPlan] = []
    var logged: [PublishedEvent] = []
    for (seq, request) in state.inFlight.sorted(by: { $0.key < $1.key })
    where request.isPlannedAnswer {
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
            "the answer planned for \(due.rfc3339) was not delivered: susi was not running then, and it is more than 12 hours late"
        )
        logged.append(
          try apply(
            .requestFailed(Action.RequestFailed(cause: seq, error: error)), origin: .store,
            cause: seq, id: book.ledger.id(owedBy: seq), idempotencyKey: nil))
        resumed.append(ResumedPlan(seq: seq, query: received.query, due: due, fate: .dropped))
        continue
      }
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
}

extension Store {
  /// Waits until no event from seq `first` on owes a result, for at most `timeout` seconds; true
  /// when none does. Unlike `drain`, it leaves alone planned answers of earlier runs that
  /// start-up scheduled again (older events owe those): a run waits for what it asked itself.
  public func drain(timeout: Double, owedFrom first: Int) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask { await self.settled(from: first) }
      group.addTask {
        try? await Task.sleep(for: .milliseconds(Int64(max(0, timeout) * 1000)))
        return false
      }
      let settled = await group.next() ?? false
      group.cancelAll()
      return settled
    }
  }

  private func settled(from first: Int) async -> Bool {
    while book.ledger.owed.keys.contains(where: { $0 >= first }) {
      let last = lastSeq
      await feed.waitForEvents(after: last)
      // Nothing new: the feed closed or the wait was cancelled.
      if lastSeq == last { return false }
    }
    return true
  }
}
