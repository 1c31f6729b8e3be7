public import SusiCore
public import SusiStore
import Synchronization

/// Sends this frontend's intents to the store and waits for the first result of each, through
/// the store's `results(of:)`; every other event (a planned answer, a second result of one
/// intent, other senders' events) goes to `onOther`, in log order, through `events(after:)`.
public final class IntentClient: Sendable {
  /// The origin stamped on this client's intents.
  public let origin: EventOrigin
  public let store: Store
  private let shared = Mutex(Shared())
  /// Where other events go; until it is set, they are held (the follower may catch up on events
  /// logged before this client existed, such as planned answers delivered at start).
  private let others = Mutex<Others>(Others())

  private struct Others {
    var handler: (@Sendable (PublishedEvent) -> Void)?
    var held: [PublishedEvent] = []
  }

  private struct Shared {
    /// Our intents whose first result has not been seen by the follower.
    var open: Set<Int> = []
    /// Requests being waited for right now, for Ctrl-C.
    var waiting: Set<Int> = []
    /// Intents being sent by `perform`.
    var sending = 0
    /// The seq of the last event the follower has handled.
    var lastSeen = 0
    var seenWaiters: [(seq: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var finished = false
  }

  /// Starts following `store` after the event `after` (default: its last); intents sent
  /// through `perform` carry `origin`.
  public init(store: Store, origin: EventOrigin = .cli, after: Int? = nil) async {
    self.store = store
    self.origin = origin
    var start = await store.lastSeq
    if let after { start = min(after, start) }
    shared.withLock { $0.lastSeen = start }
    let events = store.events(after: start)
    Task { [weak self] in
      do {
        for try await published in events {
          guard let self else { return }
          self.route(published)
        }
      } catch {
        // The log could not be read back; nothing more is shown.
      }
      self?.finish()
    }
  }

  /// Sets what happens to every event that is not the first result of an intent sent here.
  /// The handler runs on the follower, in log order; it must not wait for this client.
  public func onOther(_ handler: @escaping @Sendable (PublishedEvent) -> Void) {
    // Under the lock, so that held events go out before any the follower routes next.
    others.withLock { o in
      for event in o.held { handler(event) }
      o.held = []
      o.handler = handler
    }
  }

  /// Sends `action` and waits for its first result. Returns the intent's seq and the result
  /// (nil when the store closed first, or the action asks for no result).
  public func perform(_ action: Action) async throws(StoreError) -> (seq: Int, result: Event?) {
    // Counted from before the send, so that a Ctrl-C that comes while the intent is being
    // logged (its request may already be on the way) waits for its seq instead of missing it.
    shared.withLock { $0.sending += 1 }
    let published: PublishedEvent
    do {
      published = try await store.send(action, origin: origin)
    } catch {
      shared.withLock { $0.sending -= 1 }
      throw error
    }
    shared.withLock {
      $0.sending -= 1
      $0.waiting.insert(published.seq)
    }
    return (published.seq, await result(for: published.seq))
  }

  /// True while an intent is being sent and its seq is not among `waitingFor` yet.
  public var isSending: Bool { shared.withLock { $0.sending > 0 } }

  /// Waits for the first result caused by the intent `seq`.
  public func result(for seq: Int) async -> Event? {
    shared.withLock { _ = $0.waiting.insert(seq) }
    defer { shared.withLock { _ = $0.waiting.remove(seq) } }
    var results = store.results(of: seq).makeAsyncIterator()
    return (try? await results.next())?.event
  }

  /// The intents whose results are being waited for now, oldest first.
  public var waitingFor: [Int] { shared.withLock { $0.waiting.sorted() } }

  /// Returns once the follower has handled every event up to `seq` (or the store closed).
  public func waitUntilSeen(_ seq: Int) async {
    await withCheckedContinuation { continuation in
      let done = shared.withLock { s in
        if s.lastSeen >= seq || s.finished { return true }
        s.seenWaiters.append((seq, continuation))
        return false
      }
      if done { continuation.resume() }
    }
  }

  private func route(_ published: PublishedEvent) {
    let event = published.event
    let other: Bool = shared.withLock { s in
      guard let cause = event.cause else {
        // Another process's intent may carry the same origin (a `susi ask` beside this chat).
        if event.origin == origin, !published.byAnotherProcess, event.action.kind == .intent,
          !Self.answersNothing(event.action)
        {
          s.open.insert(event.seq)
          return false
        }
        return true
      }
      return s.open.remove(cause) == nil
    }
    if other {
      others.withLock { o in
        if let handler = o.handler { handler(published) } else { o.held.append(published) }
      }
    }
    let reached = shared.withLock { s in
      s.lastSeen = published.seq
      let due = s.seenWaiters.filter { $0.seq <= s.lastSeen }
      s.seenWaiters.removeAll { $0.seq <= s.lastSeen }
      return due.map(\.continuation)
    }
    for continuation in reached { continuation.resume() }
  }

  private func finish() {
    let waiting = shared.withLock { s in
      s.finished = true
      defer { s.seenWaiters = [] }
      return s.seenWaiters.map(\.continuation)
    }
    for continuation in waiting { continuation.resume() }
  }

  /// Intents that produce no result of their own when they succeed.
  private static func answersNothing(_ action: Action) -> Bool {
    if case .cancelRequest = action { return true }
    return false
  }
}
