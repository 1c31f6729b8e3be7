import Synchronization

/// A time source that moves only when a test says so, in the manner of swift-nio's
/// `EmbeddedEventLoop.advanceTime(by:)`. Wall and monotonic time move together; sleepers wake
/// when `advance(by:)` passes their deadline, so backoff, deadlines and timeouts are tested
/// without waiting.
///
/// ```swift
/// let time = ManualTimeSource()
/// runner.start(.deliverLater(delayMilliseconds: 5000, message: m), cause: 3, deliver: collect)
/// await time.waitForSleepers(count: 1)
/// await time.advance(by: .milliseconds(5000))
/// ```
public final class ManualTimeSource: TimeSource {
  private struct Sleeper {
    var deadline: Duration
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct Watcher {
    var condition: @Sendable ([Int64]) -> Bool
    var continuation: CheckedContinuation<Void, Never>
  }

  private struct Book {
    var monotonic: Duration = .zero
    /// Wall time minus monotonic time.
    var wallOffset: Duration
    var sleepers: [Int: Sleeper] = [:]
    var cancelledBeforeSleeping: Set<Int> = []
    var requested: [Int64] = []
    var watchers: [Int: Watcher] = [:]
    var observers: [@Sendable () async -> Void] = []
    var nextID = 0

    var pending: [Int64] {
      sleepers.values.map { ($0.deadline - monotonic).wholeMilliseconds }.sorted()
    }

    mutating func newID() -> Int {
      nextID += 1
      return nextID
    }

    /// Watchers whose condition now holds, removed from the book.
    mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
      let pending = pending
      let ready = watchers.filter { $0.value.condition(pending) }
      for id in ready.keys { watchers[id] = nil }
      return ready.values.map(\.continuation)
    }
  }

  private let book: Mutex<Book>

  /// A time source whose wall clock reads `millisecondsSince1970` (by default
  /// 2026-11-21T10:00:00Z) and whose monotonic clock reads zero until advanced.
  public init(millisecondsSince1970: Int64 = 1_795_255_200_000) {
    book = Mutex(Book(wallOffset: .milliseconds(millisecondsSince1970)))
  }

  /// The wall time this source has been advanced or set to.
  public func millisecondsSince1970() -> Int64 {
    book.withLock { ($0.monotonic + $0.wallOffset).wholeMilliseconds }
  }

  /// The monotonic time this source has been advanced to.
  public func monotonicTime() -> Duration { book.withLock { $0.monotonic } }

  /// Suspends until `advance(by:)` passes the deadline, or the task is cancelled.
  public func sleep(milliseconds: Int64) async throws {
    let id = book.withLock { book -> Int in
      book.requested.append(milliseconds)
      return book.newID()
    }
    guard milliseconds > 0 else {
      try Task.checkCancellation()
      return
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let (registered, ready) = book.withLock {
          book -> (Bool, [CheckedContinuation<Void, Never>]) in
          if book.cancelledBeforeSleeping.remove(id) != nil { return (false, []) }
          let deadline = book.monotonic + .milliseconds(milliseconds)
          book.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return (true, book.satisfiedWatchers())
        }
        if !registered { continuation.resume(throwing: CancellationError()) }
        for watcher in ready { watcher.resume() }
      }
    } onCancel: {
      let (sleeper, ready) = book.withLock {
        book -> (Sleeper?, [CheckedContinuation<Void, Never>]) in
        guard let sleeper = book.sleepers.removeValue(forKey: id) else {
          book.cancelledBeforeSleeping.insert(id)
          return (nil, [])
        }
        return (sleeper, book.satisfiedWatchers())
      }
      sleeper?.continuation.resume(throwing: CancellationError())
      for watcher in ready { watcher.resume() }
    }
  }

  /// Records a server loop to settle around each `advance(by:)`.
  public func addObserver(_ settle: @escaping @Sendable () async -> Void) {
    book.withLock { $0.observers.append(settle) }
  }

  /// Moves wall and monotonic time forward by `duration`. Every observing server loop first
  /// handles what was already sent to it at the old time; then time moves and every sleeper
  /// whose deadline has come wakes, earliest first; then every loop checks its deadlines. When
  /// this returns, whatever the loops' deadlines caused (a 408, a closed connection) has been
  /// done.
  public func advance(by duration: Duration) async {
    let observers = book.withLock { $0.observers }
    for settle in observers { await settle() }
    wakeSleepers(movingTimeBy: duration)
    for settle in observers { await settle() }
  }

  private func wakeSleepers(movingTimeBy duration: Duration) {
    let (due, ready) = book.withLock { book -> ([Sleeper], [CheckedContinuation<Void, Never>]) in
      book.monotonic += duration
      let now = book.monotonic
      let due = book.sleepers.filter { $0.value.deadline <= now }
        .sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
      for (id, _) in due { book.sleepers[id] = nil }
      return (due.map(\.value), book.satisfiedWatchers())
    }
    for sleeper in due { sleeper.continuation.resume() }
    for watcher in ready { watcher.resume() }
  }

  /// Sets the wall clock to `millisecondsSince1970`, forwards or back, as when the machine's
  /// clock is set. Monotonic time and sleepers are not affected.
  public func setWallClock(millisecondsSince1970: Int64) {
    book.withLock { $0.wallOffset = .milliseconds(millisecondsSince1970) - $0.monotonic }
  }

  /// Time left for each sleeping task in milliseconds, shortest first.
  public var pendingSleeps: [Int64] { book.withLock { $0.pending } }

  /// Every duration `sleep` was asked for, in order.
  public var requestedSleeps: [Int64] { book.withLock { $0.requested } }

  /// Returns once the remaining sleep times satisfy `condition`, or when the task is cancelled.
  public func waitForSleepers(where condition: @escaping @Sendable ([Int64]) -> Bool) async {
    let id = book.withLock { $0.newID() }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let holds = book.withLock { book -> Bool in
          if condition(book.pending) || Task.isCancelled { return true }
          book.watchers[id] = Watcher(condition: condition, continuation: continuation)
          return false
        }
        if holds { continuation.resume() }
      }
    } onCancel: {
      book.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume()
    }
  }

  /// Returns once at least `count` tasks are sleeping.
  public func waitForSleepers(count: Int) async {
    await waitForSleepers { $0.count >= count }
  }

  /// Keeps waking the soonest sleeper due within `limit` milliseconds, advancing time to it,
  /// until the returned task is cancelled: lets backoff run its course while deadlines longer
  /// than `limit` never expire.
  public func autoAdvance(sleepsUpTo limit: Int64) -> Task<Void, Never> {
    Task {
      while !Task.isCancelled {
        await waitForSleepers { $0.contains { $0 <= limit } }
        guard !Task.isCancelled, let soonest = pendingSleeps.first(where: { $0 <= limit }) else {
          continue
        }
        await advance(by: .milliseconds(soonest))
      }
    }
  }
}
