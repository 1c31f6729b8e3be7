import SusiCore
import SusiRunner
import Synchronization

/// A clock whose time moves only when a test says so, in the manner of swift-nio's
/// `EmbeddedEventLoop.advanceTime(by:)`: sleepers wake when `advance(by:)` passes their
/// deadline, so backoff, deadlines and planned answers are tested without waiting.
///
/// ```swift
/// let clock = TestClock()
/// runner.start(.deliverLater(delayMilliseconds: 5000, message: m), cause: 3, deliver: collect)
/// await clock.waitForSleepers(count: 1)
/// clock.advance(by: 5000)
/// ```
public final class TestClock: RunnerClock {
  private struct Sleeper {
    var deadline: Int64
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct Watcher {
    var condition: @Sendable ([Int64]) -> Bool
    var continuation: CheckedContinuation<Void, Never>
  }

  private struct Book {
    var now: Int64
    var sleepers: [Int: Sleeper] = [:]
    var cancelledBeforeSleeping: Set<Int> = []
    var requested: [Int64] = []
    var watchers: [Int: Watcher] = [:]
    var nextID = 0

    var pending: [Int64] { sleepers.values.map { $0.deadline - now }.sorted() }

    /// Watchers whose condition now holds, removed from the book.
    mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
      let pending = pending
      let ready = watchers.filter { $0.value.condition(pending) }
      for id in ready.keys { watchers[id] = nil }
      return ready.values.map(\.continuation)
    }
  }

  private let book: Mutex<Book>

  /// A clock reading `now` (by default 2026-11-21T10:00:00Z) until advanced.
  public init(now: Timestamp = Timestamp(milliseconds: 1_795_255_200_000)) {
    book = Mutex(Book(now: now.milliseconds))
  }

  /// The clock's current time.
  public func now() -> Timestamp { Timestamp(milliseconds: book.withLock { $0.now }) }

  /// Suspends until `advance(by:)` passes the deadline, or the task is cancelled.
  public func sleep(milliseconds: Int64) async throws {
    let id = book.withLock { book -> Int in
      book.nextID += 1
      book.requested.append(milliseconds)
      return book.nextID
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
          book.sleepers[id] = Sleeper(deadline: book.now + milliseconds, continuation: continuation)
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

  /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
  public func advance(by milliseconds: Int64) {
    let (due, ready) = book.withLock { book -> ([Sleeper], [CheckedContinuation<Void, Never>]) in
      book.now += milliseconds
      let now = book.now
      let due = book.sleepers.filter { $0.value.deadline <= now }
        .sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
      for (id, _) in due { book.sleepers[id] = nil }
      return (due.map(\.value), book.satisfiedWatchers())
    }
    for sleeper in due { sleeper.continuation.resume() }
    for watcher in ready { watcher.resume() }
  }

  /// Time left for each sleeping task, shortest first.
  public var pendingSleeps: [Int64] { book.withLock { $0.pending } }

  /// Every duration `sleep` was asked for, in order.
  public var requestedSleeps: [Int64] { book.withLock { $0.requested } }

  /// Returns once the remaining sleep times satisfy `condition`, or when the task is cancelled.
  public func waitForSleepers(where condition: @escaping @Sendable ([Int64]) -> Bool) async {
    let id = book.withLock { book -> Int in
      book.nextID += 1
      return book.nextID
    }
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
        advance(by: soonest)
      }
    }
  }

  /// Returns once at least `count` tasks are sleeping.
  public func waitForSleepers(count: Int) async {
    await waitForSleepers { $0.count >= count }
  }
}
