import SusiCore

// Following events: every frontend reads what the store logged through these two sequences,
// never from the log file or a subscription of its own.

extension Store {
  /// Every event after `seq`, in log order: first those already logged (read back from the log
  /// when they are no longer in memory), then each new one as it is logged. The sequence ends
  /// when the store closes or the task is cancelled.
  public nonisolated func events(after seq: Int) -> EventStream {
    EventStream(feed: feed, cursor: seq)
  }

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

/// The events after a seq, catch-up then live: see `Store.events(after:)`.
public struct EventStream: AsyncSequence, Sendable {
  public typealias Element = PublishedEvent
  let feed: EventFeed
  let cursor: Int

  public func makeAsyncIterator() -> Iterator { Iterator(feed: feed, cursor: cursor) }

  public struct Iterator: AsyncIteratorProtocol {
    let feed: EventFeed
    /// The seq of the last event handed out.
    public private(set) var cursor: Int
    private var ready: [PublishedEvent] = []
    private var index = 0

    init(feed: EventFeed, cursor: Int) {
      self.feed = feed
      self.cursor = cursor
    }

    public mutating func next() async throws(HistoryError) -> PublishedEvent? {
      while index == ready.count {
        if Task.isCancelled { return nil }
        ready = try feed.events(after: cursor, limit: 256)
        index = 0
        if ready.isEmpty {
          if feed.isClosed { return nil }
          await feed.waitForEvents(after: cursor)
        }
      }
      let event = ready[index]
      index += 1
      cursor = event.seq
      return event
    }
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
    private var cursor: Int
    private var ready: [PublishedEvent] = []
    private var finished = false
    /// True once the sequence ended because nothing in the chain owes a result.
    public private(set) var settled = false

    init(store: Store, seq: Int) {
      self.store = store
      chain = [seq]
      cursor = seq
    }

    public mutating func next() async throws(HistoryError) -> PublishedEvent? {
      while ready.isEmpty && !finished { try await step() }
      return ready.isEmpty ? nil : ready.removeFirst()
    }

    /// Reads everything logged up to a settlement check, so that no result that settled the
    /// chain can be missed; ends when the check found nothing owed and nothing new joined.
    private mutating func step() async throws(HistoryError) {
      let feed = store.feed
      if Task.isCancelled {
        finished = true
        return
      }
      let checked = chain
      let (pending, loggedUpTo) = await store.settlement(of: checked)
      while cursor < loggedUpTo {
        let batch = try feed.events(after: cursor, limit: 256)
        if batch.isEmpty {
          if feed.isClosed || Task.isCancelled {
            finished = true
            return
          }
          await feed.waitForEvents(after: cursor)
          continue
        }
        for event in batch {
          cursor = event.seq
          guard let cause = event.event.cause, chain.contains(cause) else { continue }
          ready.append(event)
          chain.insert(event.seq)
        }
      }
      guard chain == checked else { return }
      if !pending {
        settled = true
        finished = true
      } else if feed.isClosed {
        finished = true
      } else if ready.isEmpty {
        await feed.waitForEvents(after: cursor)
      }
    }
  }
}
