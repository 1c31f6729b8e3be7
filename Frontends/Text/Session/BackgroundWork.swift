import Synchronization

/// Runs work started outside the command being run (a planned answer printed when it arrives,
/// what another susi asked) one piece after another, in the order it was started, and counts
/// it, so the program can wait for it before it exits.
final class BackgroundWork: Sendable {
  private struct Counts {
    var running = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
    /// The piece started last: the next one waits for it, so output keeps the log's order.
    var last: Task<Void, Never>?
  }
  private let counts = Mutex(Counts())

  /// Runs `work` after everything started before it, counted until it ends.
  func start(_ work: @escaping @Sendable () async -> Void) {
    counts.withLock { c in
      c.running += 1
      let previous = c.last
      c.last = Task { await self.run(work, after: previous) }
    }
  }

  private func run(_ work: @Sendable () async -> Void, after previous: Task<Void, Never>?) async {
    await previous?.value
    await work()
    let waiters = counts.withLock { c -> [CheckedContinuation<Void, Never>] in
      c.running -= 1
      guard c.running == 0 else { return [] }
      c.last = nil
      defer { c.waiters = [] }
      return c.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once nothing is running.
  func waitUntilIdle() async {
    await withCheckedContinuation { continuation in
      let idle = counts.withLock { c in
        if c.running == 0 { return true }
        c.waiters.append(continuation)
        return false
      }
      if idle { continuation.resume() }
    }
  }

  var isIdle: Bool { counts.withLock { $0.running == 0 } }
}
