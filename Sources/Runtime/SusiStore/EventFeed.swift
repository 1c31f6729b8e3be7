import Synchronization

/// The events the store has logged, for every reader that follows them: catch-up from the log,
/// then live. The store publishes each event here as it logs it.
///
/// Readers keep their own position (a seq) and ask for what follows it, so none of them can
/// hold up the store or another reader, and none can miss an event. Recent events are served
/// from a bounded ring; older ones are read back from the log through `history`.
public final class EventFeed: Sendable {
  private let history: any EventHistory
  private let state: Mutex<State>

  struct State {
    /// The recent events, a circular buffer: `count` of them from `head` on.
    var slots: [PublishedEvent?]
    var head = 0
    var count = 0
    /// Bytes of log lines in the ring, kept under `maximumBytes` (one event always fits).
    var bytes = 0
    let maximumBytes: Int
    var lastSeq: Int
    var closed = false
    var waiters: [Int: Waiter] = [:]
    var nextWaiter = 0
    /// Followers called inside `publish` (see `EventForwarding`), with the seq they follow after.
    /// An array, so that handing them out of the lock costs no copy.
    var forwarders: [(token: Int, after: Int, forward: @Sendable ([PublishedEvent]) -> Void)] = []

    /// The seq of the oldest event in the ring (lastSeq + 1 when it is empty).
    var oldestSeq: Int { lastSeq - count + 1 }

    mutating func append(_ event: PublishedEvent) {
      if count == slots.count { dropOldest() }
      slots[(head + count) % slots.count] = event
      count += 1
      bytes += event.line.count
      while bytes > maximumBytes && count > 1 { dropOldest() }
    }

    mutating func dropOldest() {
      // Moved out rather than read in place, which would copy the whole event.
      var dropped: PublishedEvent?
      swap(&dropped, &slots[head])
      bytes -= dropped?.line.count ?? 0
      head = (head + 1) % slots.count
      count -= 1
    }

    /// The `index`-th oldest event in the ring.
    func event(_ index: Int) -> PublishedEvent? { slots[(head + index) % slots.count] }
  }

  struct Waiter {
    var after: Int
    var continuation: CheckedContinuation<Void, Never>
  }

  /// A feed whose log so far ends at `lastSeq`; `history` reads what the ring no longer holds.
  ///
  /// - Parameters:
  ///   - capacity: the most events the ring keeps.
  ///   - maximumBytes: the most bytes of log lines it keeps.
  public init(
    history: any EventHistory, lastSeq: Int, capacity: Int = 4096, maximumBytes: Int = 8 << 20
  ) {
    self.history = history
    self.state = Mutex(
      State(
        slots: Array(repeating: nil, count: max(1, capacity)), maximumBytes: maximumBytes,
        lastSeq: lastSeq))
  }

  /// The seq of the newest event published.
  public var lastSeq: Int { state.withLock { $0.lastSeq } }

  /// Adds the next logged event and wakes the readers waiting for it.
  public func publish(_ event: PublishedEvent) { publish([event]) }

  /// Adds the next logged events, in seq order, and wakes the readers waiting for them; a
  /// forwarder gets them in one call.
  public func publish(_ events: [PublishedEvent]) {
    guard let newest = events.last?.seq else { return }
    let (woken, forwarders) = state.withLock { s in
      s.lastSeq = newest
      // By index, so each event is copied once, into the ring, not first into a loop variable.
      for index in events.indices { s.append(events[index]) }
      var woken: [CheckedContinuation<Void, Never>] = []
      for (id, waiter) in s.waiters where waiter.after < newest {
        woken.append(waiter.continuation)
        s.waiters[id] = nil
      }
      return (woken, s.forwarders)
    }
    for forwarder in forwarders where forwarder.after < newest {
      if forwarder.after < events[0].seq {
        forwarder.forward(events)
      } else {
        forwarder.forward(events.filter { $0.seq > forwarder.after })
      }
    }
    for continuation in woken { continuation.resume() }
  }

  /// Calls `forward` with every event after `seq`: those already published at once (read back
  /// from the log when the ring no longer holds them), then the new ones inside `publish`, in
  /// the publisher's turn, as many at a time as it publishes. Returns the token for
  /// `stopForwarding`.
  func startForwarding(after seq: Int, to forward: @escaping @Sendable ([PublishedEvent]) -> Void)
    throws(HistoryError) -> Int
  {
    var cursor = seq
    while true {
      let token: Int? = state.withLock { s in
        guard s.lastSeq <= cursor || s.closed else { return nil }
        s.nextWaiter += 1
        s.forwarders.append((s.nextWaiter, cursor, forward))
        return s.nextWaiter
      }
      if let token { return token }
      let caughtUp = try events(after: cursor, limit: 256)
      guard let last = caughtUp.last else { continue }
      forward(caughtUp)
      cursor = last.seq
    }
  }

  /// Stops calling the forwarder of `token`.
  func stopForwarding(_ token: Int) {
    state.withLock { $0.forwarders.removeAll { $0.token == token } }
  }

  /// Wakes every reader for good: they see no more events.
  public func close() {
    let woken = state.withLock { s in
      s.closed = true
      let all = s.waiters.values.map(\.continuation)
      s.waiters = [:]
      s.forwarders = []
      return all
    }
    for continuation in woken { continuation.resume() }
  }

  /// True once the store has closed: no more events come.
  public var isClosed: Bool { state.withLock { $0.closed } }

  /// The events after `seq`, oldest first, at most `limit`.
  public func events(after seq: Int, limit: Int) throws(HistoryError) -> [PublishedEvent] {
    guard limit > 0 else { return [] }
    var published = 0
    let fromRing: [PublishedEvent]? = state.withLock { s in
      published = s.lastSeq
      guard seq >= s.oldestSeq - 1 else { return nil }
      guard seq < s.lastSeq else { return [] }
      let skip = seq - s.oldestSeq + 1
      let count = min(limit, s.count - skip)
      var out: [PublishedEvent] = []
      out.reserveCapacity(count)
      for i in 0..<count { if let event = s.event(skip + i) { out.append(event) } }
      return out
    }
    if let fromRing { return fromRing }
    // Never past what the store has shown: a log shared with other nodes may hold records this
    // store has not applied yet, or that are not on the disk yet.
    return try history.events(after: seq, limit: min(limit, published - seq))
  }

  /// Every event after `seq`, in log order, catch-up then live: the one way to follow the log
  /// (see `EventStream`).
  public func follow(after seq: Int) -> EventStream { EventStream(feed: self, cursor: seq) }

  /// Returns once an event after `seq` exists, the feed closes, or the task is cancelled.
  /// Readers follow with `follow(after:)`; this is its wake-up.
  package func waitForEvents(after seq: Int) async {
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
