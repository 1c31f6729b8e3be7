import SusiCore

// Following events: every frontend reads what the store logged through these two sequences,
// never from the log file or a subscription of its own.

extension Store {
  /// Every event after `seq`, in log order: first those already logged (read back from the log
  /// when they are no longer in memory), then each new one as it is logged. The sequence ends
  /// when the store closes or the task is cancelled.
  public nonisolated func events(after seq: Int) -> EventStream { feed.follow(after: seq) }

  /// The events that the event `seq` caused, directly or through a chain (a planned answer is
  /// caused by the answer that carried it), in log order. The sequence ends once nothing in the
  /// chain owes a result any more, when the store closes, or when the task is cancelled.
  public nonisolated func results(of seq: Int) -> ResultStream {
    ResultStream(store: self, seq: seq)
  }

  /// Collects `results(of: seq)` until the chain is settled or `deadline` returns, whichever
  /// comes first. `settled` is false when the deadline came first (or the store closed).
  public nonisolated func collectResults(
    of seq: Int, deadline: @escaping @Sendable () async -> Void
  ) async -> (events: [PublishedEvent], settled: Bool) {
    let stream = results(of: seq)
    return await withTaskGroup(of: ([PublishedEvent], Bool)?.self) { group in
      group.addTask {
        var collected: [PublishedEvent] = []
        var iterator = stream.makeAsyncIterator()
        do {
          while let event = try await iterator.next() { collected.append(event) }
        } catch {
          return (collected, false)
        }
        return (collected, iterator.settled)
      }
      group.addTask {
        await deadline()
        return nil
      }
      defer { group.cancelAll() }
      while let next = await group.next() {
        if let next { return next }
        // The deadline came first: stop the collector and take what it has.
        group.cancelAll()
      }
      return ([], false)
    }
  }

  /// Whether any of `seqs` still owes a result, and the seq of the last event logged at that
  /// moment (every result logged so far has a seq up to it).
  func settlement(of seqs: Set<Int>) -> (pending: Bool, lastSeq: Int) {
    (hasPendingResults(for: seqs), lastSeq)
  }
}

/// The events after a seq, catch-up then live: the one way every reader follows the log (the
/// chat, `susi jsonl`, `--json`, `susi serve`'s `/events/stream` and its webhook deliveries).
/// Events appended by other processes or nodes reach it once the store has caught up with them,
/// which the log's watcher (inotify on a file, `NOTIFY` on PostgreSQL) triggers.
///
/// `next()` hands out one event at a time; `nextBatch` hands out what is ready at once, one
/// wake-up per batch, and can stop waiting at a deadline (a heartbeat) or not wait at all.
public struct EventStream: AsyncSequence, Sendable {
  public typealias Element = PublishedEvent
  let feed: EventFeed
  let cursor: Int

  public func makeAsyncIterator() -> Iterator { Iterator(feed: feed, cursor: cursor) }

  /// How long `nextBatch` waits when no event is ready.
  public enum Waiting: Sendable {
    /// Not at all: an empty batch when none is ready.
    case no
    /// Until an event comes, the feed closes or the task is cancelled.
    case forever
    /// Until an event comes, or `deadline` returns first (then an empty batch).
    case until(_ deadline: @Sendable () async -> Void)
  }

  public struct Iterator: AsyncIteratorProtocol {
    let feed: EventFeed
    /// The seq of the last event read from the feed.
    private var fetched: Int
    /// Read by `next()` and not yet handed out: those from `index` on.
    private var ready: [PublishedEvent] = []
    private var index = 0

    init(feed: EventFeed, cursor: Int) {
      self.feed = feed
      self.fetched = cursor
    }

    /// The seq of the last event handed out.
    public var cursor: Int { index > 0 ? ready[index - 1].seq : fetched }

    public mutating func next() async throws(HistoryError) -> PublishedEvent? {
      if index == ready.count {
        guard let batch = try await nextBatch(limit: 256) else { return nil }
        ready = batch
        index = 0
      }
      let event = ready[index]
      index += 1
      return event
    }

    /// The events after the cursor that are ready (at most `limit`, in log order), after
    /// `waiting` for one if none is. nil once the stream has ended (the store closed, or the task
    /// was cancelled); empty when no event came in the time `waiting` allows.
    public mutating func nextBatch(limit: Int, waiting: Waiting = .forever)
      async throws(HistoryError) -> [PublishedEvent]?
    {
      if index < ready.count {
        let rest = Array(ready[index..<Swift.min(ready.count, index + Swift.max(1, limit))])
        index += rest.count
        return rest
      }
      while true {
        if Task.isCancelled { return nil }
        let batch = try feed.events(after: fetched, limit: Swift.max(1, limit))
        if let last = batch.last {
          fetched = last.seq
          ready = []
          index = 0
          return batch
        }
        if feed.isClosed { return nil }
        switch waiting {
        case .no: return []
        case .forever: await feed.waitForEvents(after: fetched)
        case .until(let deadline):
          if await !Self.wait(feed, after: fetched, deadline: deadline) { return [] }
        }
      }
    }

    /// True when an event came (or the feed closed), false when `deadline` returned first.
    private static func wait(
      _ feed: EventFeed, after cursor: Int, deadline: @escaping @Sendable () async -> Void
    ) async -> Bool {
      await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          await feed.waitForEvents(after: cursor)
          return true
        }
        group.addTask {
          await deadline()
          return false
        }
        let first = await group.next() ?? true
        group.cancelAll()
        return first
      }
    }
  }
}

/// Hands every event after a seq to a callback, inside the store's turn as each is logged (no
/// task hop per event): the cheap way to follow for frontends that forward every event
/// (`susi jsonl`, `--json`), measured to cost less than half the CPU of a task awaiting
/// `EventStream` batches when events come one by one. The callback must return quickly (queue
/// the work, do not wait for it).
public final class EventForwarding: Sendable {
  private let feed: EventFeed
  private let token: Int?

  /// Starts forwarding the events of `stream` (those after its seq) to `forward`, in log order:
  /// those already logged at once, on this task, then each new one as it is logged.
  public convenience init(
    _ stream: EventStream, to forward: @escaping @Sendable (PublishedEvent) -> Void
  ) {
    // By index: a for-in loop would copy each event (its payload's references) to hand it over.
    self.init(
      stream, toBatches: { events in for index in events.indices { forward(events[index]) } })
  }

  /// Starts forwarding like `init(_:to:)`, handing over the events the store logs together
  /// (a batch of intents, the results of one turn) in one call, so that a writer can write
  /// them out at once.
  public init(
    _ stream: EventStream, toBatches forward: @escaping @Sendable ([PublishedEvent]) -> Void
  ) {
    feed = stream.feed
    token = try? stream.feed.startForwarding(after: stream.cursor, to: forward)
  }

  /// Stops forwarding. Every event the store had logged when it last answered the caller has
  /// been forwarded by then.
  public func stop() {
    if let token { feed.stopForwarding(token) }
  }
}

/// The results an event caused: see `Store.results(of:)`.
public struct ResultStream: AsyncSequence, Sendable {
  public typealias Element = PublishedEvent
  let store: Store
  let seq: Int

  public func makeAsyncIterator() -> Iterator { Iterator(store: store, seq: seq) }

  public struct Iterator: AsyncIteratorProtocol {
    let store: Store
    /// The events whose results belong to the chain.
    private var chain: Set<Int>
    private var events: EventStream.Iterator
    private var ready: [PublishedEvent] = []
    private var finished = false
    /// True once the sequence ended because nothing in the chain owes a result.
    public private(set) var settled = false

    init(store: Store, seq: Int) {
      self.store = store
      chain = [seq]
      events = store.feed.follow(after: seq).makeAsyncIterator()
    }

    public mutating func next() async throws(HistoryError) -> PublishedEvent? {
      while ready.isEmpty && !finished { try await step() }
      return ready.isEmpty ? nil : ready.removeFirst()
    }

    /// Reads everything logged up to a settlement check, so that no result that settled the
    /// chain can be missed; ends when the check found nothing owed and nothing new joined.
    private mutating func step() async throws(HistoryError) {
      if Task.isCancelled {
        finished = true
        return
      }
      let checked = chain
      let (pending, loggedUpTo) = await store.settlement(of: checked)
      while events.cursor < loggedUpTo {
        guard try await take(events.nextBatch(limit: 256)) else { return }
      }
      guard chain == checked else { return }
      if !pending {
        settled = true
        finished = true
      } else if ready.isEmpty {
        _ = try await take(events.nextBatch(limit: 256))
      }
    }

    /// Keeps the events of `batch` that belong to the chain; false (and finished) when the
    /// stream ended.
    private mutating func take(_ batch: [PublishedEvent]?) -> Bool {
      guard let batch else {
        finished = true
        return false
      }
      for event in batch {
        guard let cause = event.event.cause, chain.contains(cause) else { continue }
        ready.append(event)
        chain.insert(event.seq)
      }
      return true
    }
  }
}
