public import SusiClock
public import SusiCore
public import SusiJSON
import Synchronization

/// The heart of susi: stamps each action into an event, appends it to the log, reduces it, hands
/// the effects to the runner and publishes the event to its followers — in that order, one action
/// at a time.
///
/// Write-ahead: an action is in the log before it changes the state or starts any effect, so
/// replaying the log rebuilds exactly this state.
public actor Store {
  /// Everything folded from the events so far — the same bookkeeping replay does.
  private(set) var book: Recovered
  /// The current state.
  public var state: State { book.state }
  /// The seq of the last event (0 for an empty log).
  public var lastSeq: Int { book.lastSeq }
  let sink: any EventSink
  let runner: any EffectsRunner
  let clock: any TimeSource
  /// What readers follow: every event is published here as it is logged.
  public nonisolated let feed: EventFeed
  /// How long appends take and how far behind other processes' appends are followed.
  public nonisolated let timings = LogTimings()
  /// Who follows the access state (Store+Access.swift).
  var accessFollowers: [Int: AccessFollower] = [:]
  /// The planned answers this process's runner is waiting to deliver (its own and those other
  /// processes planned), by the seq of the answer that planned each: see Store+PlannedAnswers.
  var plannedJobs: Set<Int> = []
  /// Events this process logged (intents, and results chained to them) that still owe a result:
  /// what a frontend of this process may wait for, never another process's work.
  var ownOwed: Set<Int> = []
  private(set) var failure: StoreError?
  /// The most events that may owe results at once: see `isFull`.
  public nonisolated let inFlightLimit: Int
  /// Where the runner's effects run, when they prefer one thread (see
  /// `EffectsRunner.preferredTaskExecutor`): a sender whose task prefers it too runs the store,
  /// the runner and the HTTP client on that one thread, so nothing hops between threads.
  public nonisolated var preferredTaskExecutor: (any TaskExecutor)? {
    runner.preferredTaskExecutor
  }
  /// Senders waiting in `waitForRoom`.
  private var roomWaiters: [CheckedContinuation<Void, Never>] = []
  /// Results the runner delivered that wait to be logged together (Store+Batch.swift).
  var delivered = DeliveredResults()

  /// The default `inFlightLimit`: enough to keep every connection of the runner busy, small
  /// enough that the work waiting for it costs a few megabytes.
  public static let defaultInFlightLimit = 256
  /// The task looking for other processes' appends, for a log that cannot report them.
  private var follower: Task<Void, Never>?
  /// What reports other processes' appends (see `followOtherWriters`).
  private var watch: (any AppendWatch)?
  /// Writes snapshots as events are applied (Store+Snapshots.swift).
  var snapshots: SnapshotKeeper?
  /// On a sink that commits in groups: what is logged but not committed yet, and who waits for
  /// it (Store+GroupCommit.swift).
  var held = HeldEvents()

  /// A store continuing from `recovered` (what replaying the log produced), writing to `sink`.
  ///
  /// - Parameter inFlightLimit: how many events may owe results at once before `isFull`.
  public init(
    sink: any EventSink, runner: any EffectsRunner, clock: any TimeSource,
    recovered: Recovered = Recovered(), inFlightLimit: Int = Store.defaultInFlightLimit
  ) {
    self.inFlightLimit = max(1, inFlightLimit)
    self.sink = sink
    self.runner = runner
    self.clock = clock
    self.book = recovered
    feed = EventFeed(history: sink.history, lastSeq: recovered.lastSeq)
  }

  /// Logs and applies an action. Returns the event as logged.
  ///
  /// - Parameters:
  ///   - origin: who sends it (`cli`, `jsonl`, `webhook`, …).
  ///   - id: the caller's correlation id; results of this action carry it too.
  ///   - idempotencyKey: when set and already used, nothing is appended and the first event's
  ///     seq is reported through `StoreError.duplicate`.
  ///
  /// Returns once the event is committed: on a sink that commits in groups, that waits for the
  /// group's commit, and other actions may be sent meanwhile.
  @discardableResult
  public func send(
    _ action: Action, origin: EventOrigin, id: JSON? = nil, idempotencyKey: String? = nil
  ) async throws(StoreError) -> PublishedEvent {
    await waitForGroup()
    let published: PublishedEvent
    senderLogs()
    do {
      published = try apply(
        action, origin: origin, cause: nil, id: id, idempotencyKey: idempotencyKey)
    } catch {
      senderLogged(willRun: false)
      // A duplicate names an event that may still wait for its commit.
      if case .duplicate(let seq) = error { try await committed(through: seq) }
      throw error
    }
    senderLogged(willRun: true)
    try await committed(through: published.seq, runningTheCommit: true)
    return published
  }

  /// True while any of the events `seqs` still owes a result.
  public func hasPendingResults(for seqs: Set<Int>) -> Bool {
    seqs.contains { book.ledger.owes($0) }
  }

  /// True while the event `seq` still owes a result.
  public func hasPendingResults(for seq: Int) -> Bool { book.ledger.owes(seq) }

  /// True while `inFlightLimit` events owe results: the runner has all the work it may queue.
  /// Frontends hold new intents back until there is room (`susi jsonl` stops reading, `susi
  /// serve` answers 429); the store itself still accepts what is sent.
  public var isFull: Bool { room == 0 }

  /// How many more events may owe results before the store is full (see `isFull`).
  public var room: Int { max(0, inFlightLimit - book.ledger.count) }

  /// How much room a full store makes before `waitForRoom` returns: an eighth of
  /// `inFlightLimit`, so a frontend held back sends its next intents that many at a time (one
  /// append), not a few after each few results.
  public nonisolated var refillRoom: Int { max(1, inFlightLimit / 8) }

  /// Returns at once when the store is not full; when it is, once it has `refillRoom` room
  /// again (or it closed or failed).
  public func waitForRoom() async {
    guard isFull else { return }
    while !hasRefilled && failure == nil {
      await withCheckedContinuation { roomWaiters.append($0) }
    }
  }

  /// True when a full store has room enough again (see `waitForRoom`). Room for fewer will do
  /// when fewer than `refillRoom` of this process's own events still owe results: the rest may
  /// be other processes' work, whose results may never come.
  private var hasRefilled: Bool {
    room >= refillRoom || (room > 0 && ownOwed.count < refillRoom)
  }

  /// The seq of the event first sent with `key`, if the key is still in force.
  public func seq(forIdempotencyKey key: String) -> Int? {
    book.idempotencyKeys.seq(for: key, at: book.lastAt)
  }

  /// Receives a result from the runner. A planned answer is logged only while it is still owed:
  /// every process on a log waits for every planned answer, and the first to log its delivery
  /// wins; the others see it in the log and stand down.
  ///
  /// On a log that takes batches, the results delivered together (the replies one turn of the
  /// HTTP client's event loop read) are logged together, in one write (Store+Batch.swift).
  nonisolated func receive(_ result: consuming Action, cause: Int) async {
    guard await queue(result, cause: cause) else { return }
    // The first result of a batch goes to the back of the queue of the thread it runs on (the
    // event loop's): the deliveries already waiting there queue theirs meanwhile. It is logged
    // with them (or with intents sent meanwhile) before this delivery returns, so the runner
    // counts the batch as under way until it is in the log, and `drain` does not return before.
    await Task.yield()
    await logDeliveredResults()
  }

  /// Logs `result` at once, or queues it for `logDeliveredResults` on a log that takes
  /// batches; true when it is the first of a batch.
  private func queue(_ result: consuming Action, cause: Int) -> Bool {
    let planned = plannedJobs.remove(cause) != nil
    if planned && !book.ledger.owes(cause) { return false }
    guard sink.batchesAppends, !sink.commitsInGroups else {
      logResult(result, cause: cause, planned: planned)
      return false
    }
    return deliver(result, cause: cause, planned: planned)
  }

  /// Logs one result on its own (see `receive`).
  private func logResult(_ result: Action, cause: Int, planned: Bool) {
    do {
      _ = try applyLogged(
        result, origin: .runner, cause: cause, id: book.ledger.id(owedBy: cause),
        idempotencyKey: nil, onlyIfOwed: planned)
    } catch {
      // The log refused the result; the store is already failed and says so on the next send.
    }
  }

  func apply(
    _ action: Action, origin: EventOrigin, cause: Int?, id: JSON?, idempotencyKey: String?
  ) throws(StoreError) -> PublishedEvent {
    guard
      let published = try applyLogged(
        action, origin: origin, cause: cause, id: id, idempotencyKey: idempotencyKey,
        onlyIfOwed: false)
    else { throw fail(.logFailed("the log appended no event")) }
    return published
  }

  /// Thrown inside the append when the result is no longer owed: nothing is appended.
  private struct StandDown: Error {}

  /// Logs and applies an action; with `onlyIfOwed`, only while its cause still owes a result,
  /// decided under the log's append lock after what other processes appended (nil when it no
  /// longer does: another process logged the result first).
  func applyLogged(
    _ action: Action, origin: EventOrigin, cause: Int?, id: JSON?, idempotencyKey: String?,
    onlyIfOwed: Bool
  ) throws(StoreError) -> PublishedEvent? {
    if let failure { throw failure }
    var logged: Event?
    let line: [UInt8]
    let started = ContinuousClock.now
    do {
      line = try sink.appendEvent(after: { appendedByOthers in
        // What other processes logged comes first: our event follows it in seq and time.
        for other in appendedByOthers { try applyOther(other) }
        if onlyIfOwed, let cause, !book.ledger.owes(cause) { throw StandDown() }
        let event = try stamp(
          action, origin: origin, cause: cause, id: id, idempotencyKey: idempotencyKey)
        logged = event
        return event
      })
    } catch let error as StoreError {
      if case .duplicate = error { throw error }
      throw fail(error)
    } catch is StandDown {
      return nil
    } catch {
      throw fail(.logFailed("\(error)"))
    }
    guard let event = logged else { throw fail(.logFailed("the log appended no event")) }
    timings.appended(in: ContinuousClock.now - started)
    let reaction = applyAppended(event)
    snapshots?.eventApplied(book, line: line)
    let published = PublishedEvent(event: event, line: line)
    publishWhenCommitted(published, effects: reaction.effects)
    // Results the reducer gave at once follow their cause directly, in this same turn. They are
    // logged with origin `runner`, as every result is, so a log reads the same either way.
    for result in reaction.results {
      _ = try apply(
        result, origin: .runner, cause: event.seq, id: book.ledger.id(owedBy: event.seq),
        idempotencyKey: nil)
    }
    return published
  }

  /// The event `action` becomes when it is logged now: the next seq, and a time that never runs
  /// backwards. Throws `duplicate` when its idempotency key is still in force at that time.
  func stamp(
    _ action: Action, origin: EventOrigin, cause: Int?, id: JSON?, idempotencyKey: String?
  ) throws(StoreError) -> Event {
    var at = clock.now()
    if let lastAt = book.lastAt, at < lastAt { at = lastAt }
    // A key expires by the time this action is logged at.
    if let idempotencyKey, let first = book.idempotencyKeys.seq(for: idempotencyKey, at: at) {
      throw .duplicate(seq: first)
    }
    return Event(
      seq: book.lastSeq + 1, at: at, origin: origin, cause: cause, id: id,
      idempotencyKey: idempotencyKey, action: action)
  }

  /// Folds in an event this store has just appended, and returns what the reducer decided.
  func applyAppended(_ event: Event) -> Reaction {
    let reaction = book.apply(event)
    noteOwed(event, loggedHere: true)
    if !roomWaiters.isEmpty && hasRefilled { wakeRoomWaiters() }
    return reaction
  }

  /// Shows a logged event to every reader and starts its effects (once it is committed).
  func publish(_ published: PublishedEvent, effects: [Effect]) {
    publish([published], effects: [effects])
  }

  /// Shows logged events to every reader, together (a forwarder writing them out gets them in
  /// one call), and starts their effects (`effects[i]` are those of `events[i]`). Two arrays,
  /// not one of pairs: the feed keeps the events as they are, without a copy of each.
  func publish(_ events: [PublishedEvent], effects: [[Effect]]) {
    for index in events.indices { accessApplied(events[index]) }
    feed.publish(events)
    for (index, effects) in effects.enumerated() {
      let seq = events[index].seq
      for effect in effects {
        if case .deliverLater = effect { plannedJobs.insert(seq) }
        runner.start(effect, cause: seq) { [weak self] result in
          await self?.receive(result, cause: seq)
        }
      }
    }
  }

  /// Applies an event another process logged: folded into the state and published like our own,
  /// but its effects are not started here (the process that logged it runs them, and their
  /// results come back through the log) — except planned answers, which every process waits
  /// for, so one comes due whoever asked and whether or not that process still runs.
  func applyOther(_ line: [UInt8]) throws(StoreError) {
    var published: PublishedEvent
    do {
      published = try PublishedEvent(line: line)
      published.byAnotherProcess = true
    } catch {
      throw .logFailed("another process logged a record that is not an event: \(error)")
    }
    let event = published.event
    timings.followed(lagMilliseconds: clock.now().milliseconds - event.at.milliseconds)
    let reaction = book.apply(event)
    noteOwed(event, loggedHere: false)
    if !roomWaiters.isEmpty && hasRefilled { wakeRoomWaiters() }
    // Shown in seq order with our own events: at once, unless events this store logged before
    // it still wait for their commit (on a sink that commits in groups); then after them.
    if held.events.isEmpty && !held.committing {
      publish(published, effects: [])
    } else {
      publishWhenCommitted(published, effects: [])
    }
    for effect in reaction.effects {
      guard case .deliverLater(_, let message) = effect else { continue }
      waitForPlannedAnswer(event.seq, message: message)
    }
    // Another process delivered (or cancelled) a planned answer this one waits for too.
    if let cause = event.cause, plannedJobs.contains(cause), !book.ledger.owes(cause) {
      runner.start(.cancel(seq: cause), cause: event.seq) { _ in }
    }
  }

  /// Keeps `ownOwed`: an intent this process logged that owes results joins it, and so does a
  /// result of one of its members that owes more (an answer that planned another); a member
  /// leaves once paid up.
  private func noteOwed(_ event: Event, loggedHere: Bool) {
    if let cause = event.cause, ownOwed.contains(cause) {
      if !book.ledger.owes(cause) { ownOwed.remove(cause) }
      if book.ledger.owes(event.seq) { ownOwed.insert(event.seq) }
    } else if loggedHere, event.cause == nil, book.ledger.owes(event.seq) {
      ownOwed.insert(event.seq)
    }
  }

  /// Applies what other processes appended to a shared log since the store last looked (see
  /// `followOtherWriters`). Does nothing once the store failed or closed.
  public func catchUp() {
    guard failure == nil else { return }
    // A commit running holds the sink: the catch-up would wait for it, holding up the store
    // meanwhile; it runs when the commit ends instead (see `commitHeld`).
    if held.committing {
      held.catchUpOwed = true
      return
    }
    do {
      for line in try sink.appendedByOthers() { try applyOther(line) }
    } catch let error as StoreError {
      _ = fail(error)
    } catch {
      _ = fail(.logFailed("\(error)"))
    }
  }

  /// Catches up whenever the log says another process appended (inotify on a log file), so
  /// followers (a chat on screen, an SSE stream) see it at once even while this process sends
  /// nothing; `fallback` is how often it looks anyway, for appends nobody reports (a network
  /// filesystem). A log that cannot report appends is looked at every `fallback`. Waiting costs
  /// no CPU. A log in PostgreSQL is followed by its own `NOTIFY` listener instead.
  public func followOtherWriters(fallback: Duration) {
    follower?.cancel()
    watch?.stop()
    let catchUp = CatchUpScheduler(store: self)
    watch = sink.watchAppendsByOthers(fallback: fallback) { catchUp.schedule() }
    guard watch == nil else { return }
    follower = Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: fallback)
        guard let self else { return }
        await self.catchUp()
      }
    }
  }

  /// Records a failure: the store accepts nothing more.
  func fail(_ error: StoreError) -> StoreError {
    failure = error
    wakeRoomWaiters()
    releaseCommitWaiters(error)
    // A group never to be committed may hold a lock other writers wait for: let go of it.
    if sink.commitsInGroups { sink.close() }
    return error
  }

  /// Closes requests that were in flight when the previous run stopped: each gets
  /// `requestFailed {kind: "interrupted"}` (origin `store`). Nothing is re-sent, because a
  /// request whose outcome is unknown must not be repeated blindly. Call once, after recovery
  /// (and after `resumePlannedAnswers`, whose answers are `keeping`).
  @discardableResult
  public func closeInterruptedRequests(keeping: Set<Int> = []) throws(StoreError)
    -> [PublishedEvent]
  {
    var closed: [PublishedEvent] = []
    for (seq, request) in state.inFlight.sorted(by: { $0.key < $1.key })
    where !keeping.contains(seq) {
      let error = RequestError(
        kind: .interrupted,
        message:
          "susi stopped before the answer to \(request.type) arrived; nothing was re-sent, ask again if needed"
      )
      closed.append(
        try apply(
          .requestFailed(Action.RequestFailed(cause: seq, error: error)), origin: .store,
          cause: seq,
          id: book.ledger.id(owedBy: seq), idempotencyKey: nil))
    }
    return closed
  }

  /// Waits for in-flight effects to deliver their results (at most `timeout` seconds). On a log
  /// other processes share, that includes the waits for their planned answers (every process
  /// waits for those): a frontend waits with `drainAnswersNow` instead.
  public func drain(timeout: Double) async -> Bool {
    await runner.waitUntilIdle(timeout: timeout)
  }

  /// Forces the log to stable storage.
  public func sync() async throws(StoreError) {
    await waitForCommitToEnd()
    await commitHeld()
    if let failure { throw failure }
    do { try sink.sync() } catch { throw .logFailed("\(error)") }
  }

  private func wakeRoomWaiters() {
    let waiters = roomWaiters
    roomWaiters = []
    for waiter in waiters { waiter.resume() }
  }

  /// Stops the runner, ends every follower and closes the log.
  public func close() async {
    await waitForCommitToEnd()
    await commitHeld()
    follower?.cancel()
    follower = nil
    watch?.stop()
    watch = nil
    // Planned answers stay marked until the runner has stopped: one that comes due meanwhile is
    // logged only if no other process logged its delivery first (see `receive`).
    await runner.shutdown()
    plannedJobs = []
    accessFollowers = [:]
    feed.close()
    sink.close()
    if failure == nil { failure = .closed }
    wakeRoomWaiters()
  }
}

/// Why the store refused an action.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The idempotency key was used before, by the event with this seq; nothing was appended.
  case duplicate(seq: Int)
  /// The log could not append; the store accepts nothing more.
  case logFailed(String)
  /// The store was closed.
  case closed

  public var description: String {
    switch self {
    case .duplicate(let seq): "this idempotency key was already used by event \(seq)"
    case .logFailed(let message):
      "the event log failed, so nothing more can be recorded: \(message)"
    case .closed: "the store is closed"
    }
  }
}

/// What replaying a log yields, for a store to continue from.
public struct Recovered: Sendable {
  public var state: State
  public var lastSeq: Int
  public var lastAt: Timestamp?
  public var ledger: ResultLedger
  public var idempotencyKeys: IdempotencyKeys

  public init(
    state: State = State(), lastSeq: Int = 0, lastAt: Timestamp? = nil,
    ledger: ResultLedger = ResultLedger(),
    idempotencyKeys: IdempotencyKeys = IdempotencyKeys()
  ) {
    self.state = state
    self.lastSeq = lastSeq
    self.lastAt = lastAt
    self.ledger = ledger
    self.idempotencyKeys = idempotencyKeys
  }

  /// Folds one event in — a replayed one, or (in the store) one just logged. Returns what the
  /// reducer decided; replay drops it: its effects and results already happened.
  @discardableResult
  public mutating func apply(_ event: Event) -> Reaction {
    let reaction = reduce(&state, event)
    lastSeq = event.seq
    lastAt = event.at
    idempotencyKeys.record(event)
    if let cause = event.cause { ledger.settle(cause) }
    ledger.expect(event.seq, id: event.id, reaction: reaction)
    return reaction
  }
}

/// Has a store catch up, unless a catch-up is already scheduled and has not started: reports
/// that come in a burst cost one catch-up.
public final class CatchUpScheduler: Sendable {
  private weak let store: Store?
  private let scheduled = Atomic<Bool>(false)

  public init(store: Store) { self.store = store }

  /// Schedules a catch-up (from any thread).
  public func schedule() {
    guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    Task { [self] in
      scheduled.store(false, ordering: .releasing)
      await store?.catchUp()
    }
  }
}
