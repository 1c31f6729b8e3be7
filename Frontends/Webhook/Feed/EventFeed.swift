import SusiStore
import Synchronization

/// The events the store has logged, for every reader of the webhook frontend: `/events`, the
/// event stream, `?wait=1`, and each subscriber's deliveries.
///
/// Readers keep their own position (a seq) and ask for what follows it, so none of them can
/// hold up the store or another reader, and none can miss an event. Recent events are served
/// from a bounded ring; older ones are read back from the log.
///
/// The feed follows the store (a subscription that costs the store work for every event) only
/// from the first time a reader waits for new events; until then every read goes to the log.
public final class EventFeed: Sendable {
  /// Where a feed gets its events: the last seq so far and a subscription to every later event,
  /// taken in one step.
  public typealias Source =
    @Sendable () async -> (lastSeq: Int, events: AsyncStream<PublishedEvent>)

  private let history: any EventHistory
  private let source: Source?
  private let state: Mutex<State>
  private let pump = Mutex<Task<Void, Never>?>(nil)

  struct State {
    /// The recent events, a circular buffer: `count` of them from `head` on.
    var slots: [FeedEvent?]
    var head = 0
    var count = 0
    /// Bytes of log lines in the ring, kept under `maximumBytes` (one event always fits).
    var bytes = 0
    let maximumBytes: Int
    var lastSeq: Int
    var published = 0
    var closed = false
    /// Whether events arrive (through `publish`); until then the ring is empty and unused.
    var following: Bool
    /// Readers waiting for the subscription that is being set up.
    var starting: [CheckedContinuation<Void, Never>]?
    var waiters: [Int: Waiter] = [:]
    var nextWaiter = 0

    /// The seq of the oldest event in the ring (lastSeq + 1 when it is empty).
    var oldestSeq: Int { lastSeq - count + 1 }

    mutating func append(_ event: FeedEvent) {
      if count == slots.count { dropOldest() }
      slots[(head + count) % slots.count] = event
      count += 1
      bytes += event.line.count
      while bytes > maximumBytes && count > 1 { dropOldest() }
    }

    mutating func dropOldest() {
      bytes -= slots[head]?.line.count ?? 0
      slots[head] = nil
      head = (head + 1) % slots.count
      count -= 1
    }

    /// The `index`-th oldest event in the ring.
    func event(_ index: Int) -> FeedEvent? { slots[(head + index) % slots.count] }
  }

  struct Waiter {
    var after: Int
    var continuation: CheckedContinuation<Void, Never>
  }

  /// A feed whose log so far ends at `lastSeq`; `history` reads what the ring no longer holds.
  ///
  /// - Parameters:
  ///   - source: where to subscribe once a reader waits for new events. Without one the feed
  ///     takes events only through `publish`.
  ///   - capacity: the most events the ring keeps.
  ///   - maximumBytes: the most bytes of log lines it keeps.
  public init(
    history: any EventHistory, lastSeq: Int, source: Source? = nil, capacity: Int = 4096,
    maximumBytes: Int = 8 << 20
  ) {
    self.history = history
    self.source = source
    self.state = Mutex(
      State(
        slots: Array(repeating: nil, count: max(1, capacity)), maximumBytes: maximumBytes,
        lastSeq: lastSeq, following: source == nil))
  }

  /// The seq of the newest event the feed has seen (the store's may be newer while the feed
  /// does not follow it yet).
  public var lastSeq: Int { state.withLock { $0.lastSeq } }

  /// How many events were published since the feed started following.
  public var publishedCount: Int { state.withLock { $0.published } }

  /// Subscribes to the source, if that has not happened yet; returns once events flow.
  public func follow() async {
    guard let source else { return }
    enum Step { case done, wait, subscribe }
    let step: Step = state.withLock { s in
      if s.following || s.closed { return .done }
      if s.starting != nil { return .wait }
      s.starting = []
      return .subscribe
    }
    switch step {
    case .done: return
    case .wait:
      // Another reader is subscribing: wait until it has.
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { s in
          guard !s.following, !s.closed, s.starting != nil else { return true }
          s.starting?.append(continuation)
          return false
        }
        if now { continuation.resume() }
      }
      return
    case .subscribe: break
    }
    let (lastSeq, events) = await source()
    let waiting = state.withLock { s in
      // Everything up to `lastSeq` is in the log; the ring starts empty after it.
      while s.count > 0 { s.dropOldest() }
      s.lastSeq = lastSeq
      s.following = true
      let waiting = s.starting ?? []
      s.starting = nil
      return waiting
    }
    pump.withLock { $0 = Task { await self.pumpEvents(events) } }
    for continuation in waiting { continuation.resume() }
  }

  private func pumpEvents(_ events: AsyncStream<PublishedEvent>) async {
    for await published in events { publish(FeedEvent(published)) }
    close()
  }

  /// Adds the next logged event and wakes the readers waiting for it.
  public func publish(_ event: FeedEvent) {
    let woken: [CheckedContinuation<Void, Never>] = state.withLock { s in
      s.lastSeq = event.seq
      s.append(event)
      s.published += 1
      var woken: [CheckedContinuation<Void, Never>] = []
      for (id, waiter) in s.waiters where waiter.after < event.seq {
        woken.append(waiter.continuation)
        s.waiters[id] = nil
      }
      return woken
    }
    for continuation in woken { continuation.resume() }
  }

  /// Wakes every reader for good: they see no more events.
  public func close() {
    let (woken, starting) = state.withLock { s in
      s.closed = true
      let all = s.waiters.values.map(\.continuation)
      s.waiters = [:]
      let starting = s.starting ?? []
      s.starting = nil
      return (all, starting)
    }
    for continuation in woken { continuation.resume() }
    for continuation in starting { continuation.resume() }
    pump.withLock { $0?.cancel() }
  }

  /// True once the store has closed: no more events come.
  public var isClosed: Bool { state.withLock { $0.closed } }

  /// The events after `seq`, oldest first, at most `limit`.
  public func events(after seq: Int, limit: Int) throws(HistoryError) -> [FeedEvent] {
    guard limit > 0 else { return [] }
    let fromRing: [FeedEvent]? = state.withLock { s in
      guard s.following, seq >= s.oldestSeq - 1 else { return nil }
      guard seq < s.lastSeq else { return [] }
      let skip = seq - s.oldestSeq + 1
      let count = min(limit, s.count - skip)
      var out: [FeedEvent] = []
      out.reserveCapacity(count)
      for i in 0..<count { if let event = s.event(skip + i) { out.append(event) } }
      return out
    }
    if let fromRing { return fromRing }
    return try history.events(after: seq, limit: limit)
  }

  /// Returns once an event after `seq` exists, the feed closes, or the task is cancelled.
  public func waitForEvents(after seq: Int) async {
    await follow()
    let id = state.withLock { s in
      s.nextWaiter += 1
      return s.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { s in
          if s.lastSeq > seq || s.closed || Task.isCancelled { return true }
          s.waiters[id] = Waiter(after: seq, continuation: continuation)
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
      waiter?.continuation.resume()
    }
  }
}

/// Events in memory, for tests and for runs without a log file.
public final class MemoryEventHistory: EventHistory {
  private let sink: MemoryEventSink

  /// Reads the lines `sink` holds.
  public init(_ sink: MemoryEventSink) { self.sink = sink }

  /// The lines after `seq`, at most `limit`.
  public func events(after seq: Int, limit: Int) throws(HistoryError) -> [FeedEvent] {
    var out: [FeedEvent] = []
    for line in sink.lines {
      let event = try FeedEvent(line: line)
      guard event.seq > seq else { continue }
      out.append(event)
      if out.count == limit { break }
    }
    return out
  }
}
