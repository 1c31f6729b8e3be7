public import SusiCore
public import SusiJSON

// Intents sent together. An intake that gathers the intents its callers post while the store
// is busy hands them over at once: they are decided, stamped and applied one after another in
// one turn of the store, each seeing the state the ones before it left, and their events reach
// a log file in one write under one append lock, instead of two system calls and a lock per
// event. Nothing is shown (readers, effects, snapshots, the senders' answers) before the write
// that holds it has returned, so an answered intent is in the log as with `send`.
//
// Results go the same way: those the runner delivers while a batch of them waits (the replies
// one turn of the HTTP client's event loop read) are logged together by the first of them, once
// the others have been queued, and shown only after the write that holds them. Intents sent
// while results wait take them along: the results go first (they came first), in the same write.

/// One intent of a batch (see `Store.sendBatch`).
public struct BatchedIntent: Sendable {
  public var action: Action
  public var origin: EventOrigin
  // `Optional<…>`, not `T?`, for the reason given at `Event`: one copy less per intent made.
  public var id: Optional<JSON>
  public var idempotencyKey: Optional<String>
  /// The event this answers: set for a result the runner delivered (see `Store.receive`).
  var cause: Optional<Int>

  public init(action: Action, origin: EventOrigin, id: JSON? = nil, idempotencyKey: String? = nil) {
    self.init(action: action, origin: origin, id: id, idempotencyKey: idempotencyKey, cause: nil)
  }

  init(action: Action, origin: EventOrigin, id: JSON?, idempotencyKey: String?, cause: Int?) {
    self.action = action
    self.origin = origin
    self.id = id
    self.idempotencyKey = idempotencyKey
    self.cause = cause
  }
}

/// Why an intent of a batch was not logged.
public enum BatchRefusal: Error {
  /// The caller's own check (`admit`) refused it; the caller knows why.
  case refused
  /// The store did (a used idempotency key, a failed log).
  case store(StoreError)
}

extension Store {
  /// True when `sendBatch` logs a batch in one write (the log file, memory) or one commit (a
  /// log that commits in groups); otherwise the intents of a batch are sent one by one.
  public nonisolated var sendsBatchesTogether: Bool {
    sink.batchesAppends || sink.commitsInGroups
  }

  /// Logs and applies `intents` in order, in one turn and (see `sendsBatchesTogether`) one
  /// write. Right before each is stamped, `admit` says whether it may be logged (it sees the
  /// state the intents before it left); `applied` runs right after it and the results the reducer gave at once
  /// were applied. Returns, per intent, its event or why it was not logged. A log failure
  /// fails the store, as with `send`.
  ///
  /// Not generic on purpose: this runs once per batch on the intake's hot path, where an
  /// unspecialized generic asks the runtime for its types' metadata on every call.
  public func sendBatch(
    _ intents: [BatchedIntent], admit: (_ index: Int) -> Bool,
    applied: (_ index: Int) -> Void = { _ in }
  ) async -> [Result<PublishedEvent, BatchRefusal>] {
    guard sendsBatchesTogether else {
      var results: [Result<PublishedEvent, BatchRefusal>] = []
      for (index, intent) in intents.enumerated() {
        guard admit(index) else {
          results.append(.failure(.refused))
          continue
        }
        do {
          let published = try await send(
            intent.action, origin: intent.origin, id: intent.id,
            idempotencyKey: intent.idempotencyKey)
          applied(index)
          results.append(.success(published))
        } catch {
          results.append(.failure(.store(error)))
        }
      }
      return results
    }
    if sink.commitsInGroups { return await sendGroup(intents, admit: admit, applied: applied) }
    let logged = logTogether(intents, admit: admit, applied: applied)
    let failure = self.failure ?? .logFailed("the log appended no event")
    guard let logged else { return intents.map { _ in .failure(.store(failure)) } }
    return logged.results.map { result in
      switch result {
      case .success(let position): .success(logged.written[position])
      case .failure(let refusal): .failure(refusal)
      case nil: .failure(.store(failure))
      }
    }
  }

  /// Queues a result (see `receive`) for the next `logDeliveredResults`; true when it is the
  /// first of a batch.
  func deliver(_ result: consuming Action, cause: Int, planned: Bool) -> Bool {
    delivered.results.append(
      BatchedIntent(
        action: result, origin: .runner, id: book.ledger.id(owedBy: cause), idempotencyKey: nil,
        cause: cause))
    delivered.plannedFor.append(planned ? cause : nil)
    return delivered.results.count == 1
  }

  /// Logs the results delivered since the last call in one write, unless intents sent
  /// meanwhile took them along (see `logTogether`).
  func logDeliveredResults() {
    guard !delivered.results.isEmpty else { return }
    _ = logTogether([], admit: { _ in true })
  }

  /// The part of `sendBatch` on a log that takes batches: one append lock and one write, which
  /// also holds the results delivered and not logged yet, ahead of `intents` (a planned answer
  /// only while its cause still owes one, decided under the append lock as `applyLogged` does).
  /// Returns what it logged, its `results` those of `intents`, or nil when the store has failed.
  private func logTogether(
    _ intents: [BatchedIntent], admit: (_ index: Int) -> Bool,
    applied: (_ index: Int) -> Void = { _ in }
  ) -> LoggedBatch? {
    let waiting = delivered
    delivered = DeliveredResults()
    if failure != nil { return nil }
    let first = waiting.results.count
    let all = first == 0 ? intents : waiting.results + intents
    let started = ContinuousClock.now
    var logged: LoggedBatch?
    do {
      logged = try sink.appendBatch { appendedByOthers, batch in
        try logBatch(
          all, appendedByOthers: appendedByOthers, batch: batch,
          admit: { index in
            guard index >= first else { return waiting.admits(index, book.ledger) }
            return admit(index - first)
          },
          applied: { index in if index >= first { applied(index - first) } })
      }
    } catch let error as StoreError {
      _ = fail(error)
    } catch {
      _ = fail(.logFailed("\(error)"))
    }
    guard var logged else { return nil }
    if !logged.written.isEmpty { timings.appended(in: ContinuousClock.now - started) }
    publish(logged.written, effects: logged.effects)
    logged.results.removeFirst(first)
    return logged
  }

  /// `sendBatch` on a log that commits in groups: the intents are logged one after another in
  /// one turn of the store, into the group being appended, and answered together once that
  /// group is committed (by this sender, as `send` does), instead of a turn and a wait each.
  private func sendGroup(
    _ intents: [BatchedIntent], admit: (_ index: Int) -> Bool, applied: (_ index: Int) -> Void
  ) async -> [Result<PublishedEvent, BatchRefusal>] {
    await waitForGroup()
    senderLogs()
    var results: [Result<PublishedEvent, BatchRefusal>] = []
    results.reserveCapacity(intents.count)
    var newestLogged: Int?
    var newestDuplicate: Int?
    for (index, intent) in intents.enumerated() {
      guard admit(index) else {
        results.append(.failure(.refused))
        continue
      }
      do throws(StoreError) {
        let published = try apply(
          intent.action, origin: intent.origin, cause: nil, id: intent.id,
          idempotencyKey: intent.idempotencyKey)
        newestLogged = published.seq
        applied(index)
        results.append(.success(published))
      } catch {
        // A duplicate names an event that may still wait for its commit.
        if case .duplicate(let seq) = error { newestDuplicate = max(newestDuplicate ?? 0, seq) }
        results.append(.failure(.store(error)))
      }
    }
    senderLogged(willRun: newestLogged != nil)
    guard let newest = [newestLogged, newestDuplicate].compactMap({ $0 }).max() else {
      return results
    }
    do throws(StoreError) {
      try await committed(through: newest, runningTheCommit: newestLogged != nil)
    } catch {
      // Nothing of the group is in the log: no intent of it was logged.
      return results.map { result in
        switch result {
        case .success, .failure(.store(.duplicate)): .failure(.store(error))
        case .failure: result
        }
      }
    }
    return results
  }

  /// The turn of `sendBatch` inside the sink's append lock: decides, stamps and applies each
  /// intent and its results, adding their records to `batch`; writes them (also just before a
  /// snapshot is due, since a snapshot names the record it ends at).
  private func logBatch(
    _ intents: [BatchedIntent], appendedByOthers: [[UInt8]], batch: AppendBatch,
    admit: (_ index: Int) -> Bool, applied: (_ index: Int) -> Void
  ) throws -> LoggedBatch {
    // What other processes logged comes first: these events follow it in seq and time.
    for other in appendedByOthers { try applyOther(other) }
    var logged = LoggedBatch(count: intents.count)
    // By index: a for-in loop would copy each whole intent.
    for index in intents.indices {
      guard admit(index) else {
        logged.results[index] = .failure(.refused)
        continue
      }
      var event: Event
      do {
        event = try stamp(
          intents[index].action, origin: intents[index].origin, cause: intents[index].cause,
          id: intents[index].id, idempotencyKey: intents[index].idempotencyKey)
      } catch {
        logged.results[index] = .failure(.store(error))
        continue
      }
      // The intent, then the results the reducer gives at once, each right after its cause and
      // before the next one (depth first, as `applyLogged` logs them).
      var answers: Int? = index
      var results: [(action: Action, cause: Int, id: JSON?)] = []
      while true {
        batch.add(event.encoded())
        let reaction = applyAppended(event)
        let seq = event.seq
        logged.unwritten.append((consume event, reaction.effects, answers))
        if let snapshots, snapshots.isDue(afterSeq: book.lastSeq) {
          // A snapshot names the record it ends at: that record is written first.
          try logged.write(batch)
          if let line = logged.written.last?.line {
            snapshots.eventApplied(book, line: line)
          }
        }
        let owedBy = book.ledger.id(owedBy: seq)
        results += reaction.results.reversed().map { ($0, seq, owedBy) }
        guard let next = results.popLast() else { break }
        event = try stamp(
          next.action, origin: .runner, cause: next.cause, id: next.id, idempotencyKey: nil)
        answers = nil
      }
      applied(index)
    }
    try logged.write(batch)
    return logged
  }
}

/// Results the runner delivered, waiting to be logged together (see `Store.receive`).
struct DeliveredResults {
  var results: [BatchedIntent] = []
  /// Per result: its cause when it is a planned answer (logged only while that cause still owes
  /// one), else nil.
  var plannedFor: [Int?] = []

  /// Whether the result at `index` may be logged now.
  func admits(_ index: Int, _ ledger: ResultLedger) -> Bool {
    guard let cause = plannedFor[index] else { return true }
    return ledger.owes(cause)
  }
}

/// What `sendBatch` logged: per intent where its event is in `written` or why it was not
/// logged, and the events written, in order, with their effects.
private struct LoggedBatch {
  var results: [Result<Int, BatchRefusal>?]
  /// Events applied whose records are added to the batch but not written yet, with the intent
  /// each answers (nil for a result).
  var unwritten: [(event: Event, effects: [Effect], index: Int?)] = []
  var written: [PublishedEvent] = []
  /// The effects of each event of `written` (see `Store.publish`).
  var effects: [[Effect]] = []

  init(count: Int) { results = Array(repeating: nil, count: count) }

  /// Writes the records added so far; their events become `written`.
  mutating func write(_ batch: AppendBatch) throws {
    let lines = try batch.write()
    for (entry, line) in zip(unwritten, lines) {
      if let index = entry.index { results[index] = .success(written.count) }
      written.append(PublishedEvent(event: entry.event, line: line))
      effects.append(entry.effects)
    }
    unwritten = []
  }
}
