import SusiStore
import Synchronization

/// The events the store has logged, for every reader of the webhook frontend: `/events`, the
/// event stream, `?wait=1`, and each subscriber's deliveries.
///
/// Readers keep their own position (a seq) and ask for what follows it, so none of them can
/// hold up the store or another reader, and none can miss an event. Recent events are served
/// from a bounded ring; older ones are read back from the log.
public final class EventFeed: Sendable {
  private let history: any EventHistory
  private let state: Mutex<State>

  struct State {
    var ring: [FeedEvent] = []
    /// Index in `ring` of the oldest event kept.
    var head = 0
    let capacity: Int
    var lastSeq: Int
    var published = 0
    var closed = false
    var waiters: [Int: Waiter] = [:]
    var nextWaiter = 0

    /// The seq of the oldest event in the ring (lastSeq + 1 when it is empty).
    var oldestSeq: Int { lastSeq - ring.count + 1 }
  }

  struct Waiter {
    var after: Int
    var continuation: CheckedContinuation<Void, Never>
  }

  /// A feed whose log so far ends at `lastSeq`; `history` reads what the ring no longer holds.
  public init(history: any EventHistory, lastSeq: Int, capacity: Int = 4096) {
    self.history = history
    self.state = Mutex(State(capacity: max(1, capacity), lastSeq: lastSeq))
  }

  /// The seq of the newest event.
  public var lastSeq: Int { state.withLock { $0.lastSeq } }

  /// How many events were published since the feed started.
  public var publishedCount: Int { state.withLock { $0.published } }

  /// Adds the next logged event and wakes the readers waiting for it.
  public func publish(_ event: FeedEvent) {
    let woken: [CheckedContinuation<Void, Never>] = state.withLock { s in
      if s.ring.count < s.capacity {
        s.ring.append(event)
      } else {
        s.ring[s.head] = event
        s.head = (s.head + 1) % s.capacity
      }
      s.lastSeq = event.seq
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

  /// Publishes everything `events` yields until it ends, then closes the feed.
  public func follow(_ events: AsyncStream<PublishedEvent>) async {
    for await published in events { publish(FeedEvent(published)) }
    close()
  }

  /// Wakes every reader for good: they see no more events.
  public func close() {
    let woken = state.withLock { s in
      s.closed = true
      let all = s.waiters.values.map(\.continuation)
      s.waiters = [:]
      return all
    }
    for continuation in woken { continuation.resume() }
  }

  /// True once the store has closed: no more events come.
  public var isClosed: Bool { state.withLock { $0.closed } }

  /// The events after `seq`, oldest first, at most `limit`.
  public func events(after seq: Int, limit: Int) throws(HistoryError) -> [FeedEvent] {
    guard limit > 0 else { return [] }
    let fromRing: [FeedEvent]? = state.withLock { s in
      guard seq >= s.oldestSeq - 1 else { return nil }
      guard seq < s.lastSeq else { return [] }
      let skip = seq - s.oldestSeq + 1
      let count = min(limit, s.ring.count - skip)
      var out: [FeedEvent] = []
      out.reserveCapacity(count)
      for i in 0..<count { out.append(s.ring[(s.head + skip + i) % s.ring.count]) }
      return out
    }
    if let fromRing { return fromRing }
    return try history.events(after: seq, limit: limit)
  }

  /// Returns once an event after `seq` exists, the feed closes, or the task is cancelled.
  public func waitForEvents(after seq: Int) async {
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
