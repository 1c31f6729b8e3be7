import SusiCore
import SusiStore
import Synchronization

/// Sends this frontend's intents to the store and hands back the result each one causes.
///
/// One listener reads the store's events in order. An intent this client sent is seen before
/// any of its results, so a result that arrives before anyone waits for it is kept for its
/// waiter; every other event (a planned answer, a second result of one intent, other senders'
/// events) goes to `onOther`.
public final class IntentClient: Sendable {
  /// The origin stamped on this client's intents.
  public let origin: String
  public let store: Store
  private let router = Mutex(Router())
  private let otherHandler = Mutex<(@Sendable (PublishedEvent) -> Void)?>(nil)

  private struct Router {
    /// Our intents whose first result has not been handed out.
    var open: Set<Int> = []
    /// First results that arrived before their waiter.
    var arrived: [Int: Event] = [:]
    var waiters: [Int: CheckedContinuation<Event?, Never>] = [:]
    /// The seq of the last event the listener has handled.
    var lastSeen = 0
    var seenWaiters: [(seq: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var finished = false
    /// Requests being waited for right now, for Ctrl-C.
    var waiting: Set<Int> = []
  }

  /// Starts listening to `store`; intents sent through `perform` carry `origin`.
  public init(store: Store, origin: String = "cli") async {
    self.store = store
    self.origin = origin
    let events = await store.subscribe()
    let start = await store.lastSeq
    router.withLock { $0.lastSeen = start }
    Task { [weak self] in
      for await published in events {
        guard let self else { return }
        self.route(published)
      }
      self?.finish()
    }
  }

  /// Sets what happens to every event that is not the first result of an intent sent here.
  /// The handler runs on the listener, in log order; it must not wait for this client.
  public func onOther(_ handler: @escaping @Sendable (PublishedEvent) -> Void) {
    otherHandler.withLock { $0 = handler }
  }

  /// Sends `action` and waits for its first result. Returns the intent's seq and the result
  /// (nil when the store closed first).
  public func perform(_ action: Action) async throws(StoreError) -> (seq: Int, result: Event?) {
    let published = try await store.send(action, origin: origin)
    return (published.seq, await result(for: published.seq))
  }

  /// Waits for the first result caused by the intent `seq` that this client sent.
  public func result(for seq: Int) async -> Event? {
    await withCheckedContinuation { continuation in
      let ready: Event?? = router.withLock { r in
        if let event = r.arrived.removeValue(forKey: seq) { return .some(event) }
        if r.finished { return .some(nil) }
        r.waiters[seq] = continuation
        r.open.insert(seq)
        r.waiting.insert(seq)
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  /// The intents whose results are being waited for now, oldest first.
  public var waitingFor: [Int] { router.withLock { $0.waiting.sorted() } }

  /// Returns once the listener has handled every event up to `seq`.
  public func waitUntilSeen(_ seq: Int) async {
    await withCheckedContinuation { continuation in
      let done = router.withLock { r in
        if r.lastSeen >= seq || r.finished { return true }
        r.seenWaiters.append((seq, continuation))
        return false
      }
      if done { continuation.resume() }
    }
  }

  private func route(_ published: PublishedEvent) {
    let event = published.event
    var other = false
    let waiter: CheckedContinuation<Event?, Never>? = router.withLock { r in
      defer { r.lastSeen = max(r.lastSeen, event.seq) }
      guard let cause = event.cause else {
        if event.origin == origin, event.action.kind == .intent, !Self.answersNothing(event.action)
        {
          r.open.insert(event.seq)
        } else {
          other = true
        }
        return nil
      }
      guard r.open.remove(cause) != nil else {
        other = true
        return nil
      }
      r.waiting.remove(cause)
      if let waiter = r.waiters.removeValue(forKey: cause) { return waiter }
      r.arrived[cause] = event
      return nil
    }
    waiter?.resume(returning: event)
    if other, let handler = otherHandler.withLock({ $0 }) { handler(published) }
    let reached = router.withLock { r in
      let due = r.seenWaiters.filter { $0.seq <= r.lastSeen }
      r.seenWaiters.removeAll { $0.seq <= r.lastSeen }
      return due.map(\.continuation)
    }
    for continuation in reached { continuation.resume() }
  }

  /// Intents that produce no result of their own when they succeed.
  private static func answersNothing(_ action: Action) -> Bool {
    if case .cancelRequest = action { return true }
    return false
  }

  private func finish() {
    let (waiters, seen) = router.withLock { r in
      r.finished = true
      defer {
        r.waiters = [:]
        r.seenWaiters = []
      }
      return (Array(r.waiters.values), r.seenWaiters.map(\.continuation))
    }
    for waiter in waiters { waiter.resume(returning: nil) }
    for continuation in seen { continuation.resume() }
  }
}
