public import SusiCore
import Synchronization

/// One origin's conversation with the store, for a frontend that asks and waits: `request` sends
/// an intent and waits for its first result (through `results(of:)`); every other event — a
/// planned answer, a second result of one intent, another sender's events — goes to the handler
/// set with `onOtherEvents`, in log order (through `events(after:)`).
///
/// The conversation's own intents are those this process logs with its origin: one conversation
/// per origin and store. An intent with the same origin from another process sharing the log is
/// someone else's, and so are its results.
public final class Conversation: Sendable {
  /// The origin stamped on this conversation's intents.
  public let origin: EventOrigin
  public let store: Store
  private let shared = Mutex(Shared())
  /// Where other events go; until it is set, they are held (the follower may catch up on events
  /// logged before the conversation began, such as planned answers delivered at start).
  private let others = Mutex(Others())

  private struct Others {
    var handler: (@Sendable (PublishedEvent) -> Void)?
    var held: [PublishedEvent] = []
  }

  private struct Shared {
    /// Own intents whose first result the follower has not reached yet.
    var open: Set<Int> = []
    /// Intents whose results are being waited for right now, for Ctrl-C.
    var waiting: Set<Int> = []
    /// Intents being sent by `request`.
    var sending = 0
    /// The seq of the last event the follower has handled.
    var lastSeen = 0
    var seenWaiters: [(seq: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var finished = false
  }

  /// Starts following `store` after the event `start`.
  init(store: Store, origin: EventOrigin, start: Int) {
    self.store = store
    self.origin = origin
    shared.withLock { $0.lastSeen = start }
    let events = store.events(after: start)
    Task { [weak self] in
      do {
        for try await published in events {
          guard let self else { return }
          self.route(published)
        }
      } catch {
        // The log could not be read back; nothing more is followed.
      }
      self?.finish()
    }
  }

  /// Sets what happens to every event that is not the first result of one of this
  /// conversation's intents. Events held so far go to it first. The handler runs on the
  /// follower, in log order; it must not wait for this conversation.
  public func onOtherEvents(_ handler: @escaping @Sendable (PublishedEvent) -> Void) {
    // Under the lock, so that held events go out before any the follower routes next.
    others.withLock { o in
      for event in o.held { handler(event) }
      o.held = []
      o.handler = handler
    }
  }

  /// Sends `action` and waits for its first result. Returns the intent's seq and the result
  /// (nil when the store closed first, or the action asks for no result).
  public func request(_ action: Action) async throws(StoreError) -> (seq: Int, result: Event?) {
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
    defer { shared.withLock { _ = $0.waiting.remove(published.seq) } }
    var results = store.results(of: published.seq).makeAsyncIterator()
    return (published.seq, (try? await results.next())?.event)
  }

  /// The intents whose results are being waited for now, oldest first.
  public var waitingFor: [Int] { shared.withLock { $0.waiting.sorted() } }

  /// `waitingFor`, and whether an intent is being sent whose seq is not among them yet, read at
  /// one moment: a send that ends between two separate reads would be in neither.
  public var requests: (waitingFor: [Int], sending: Bool) {
    shared.withLock { ($0.waiting.sorted(), $0.sending > 0) }
  }

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
    let isOther = shared.withLock { s in
      guard let cause = published.event.cause else {
        guard isOwnIntent(published) else { return true }
        s.open.insert(published.seq)
        return false
      }
      return s.open.remove(cause) == nil
    }
    if isOther {
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

  /// An intent this process logged with this conversation's origin that is owed a result.
  private func isOwnIntent(_ published: PublishedEvent) -> Bool {
    let event = published.event
    guard event.origin.isSender(origin), !published.byAnotherProcess, event.action.kind == .intent
    else { return false }
    // Cancelling a request produces no result of its own when it succeeds.
    if case .cancelRequest = event.action { return false }
    return true
  }

  private func finish() {
    let waiting = shared.withLock { s in
      s.finished = true
      defer { s.seenWaiters = [] }
      return s.seenWaiters.map(\.continuation)
    }
    for continuation in waiting { continuation.resume() }
  }
}

extension Store {
  /// Starts a conversation for `origin`, following events after `after` (at most the last seq;
  /// by default the last seq, so only what is logged from now on).
  public func conversation(origin: EventOrigin, after: Int? = nil) -> Conversation {
    Conversation(store: self, origin: origin, start: min(after ?? lastSeq, lastSeq))
  }
}
