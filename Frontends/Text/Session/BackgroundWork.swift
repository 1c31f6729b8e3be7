import Synchronization

/// Counts work started outside the command being run (a planned answer printed when it
/// arrives), so the program can wait for it before it exits.
final class BackgroundWork: Sendable {
  private struct Counts {
    var running = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
  }
  private let counts = Mutex(Counts())

  /// Runs `work` in a task of its own, counted until it ends.
  func start(_ work: @escaping @Sendable () async -> Void) {
    counts.withLock { $0.running += 1 }
    Task {
      await work()
      let waiters = counts.withLock { c -> [CheckedContinuation<Void, Never>] in
        c.running -= 1
        guard c.running == 0 else { return [] }
        defer { c.waiters = [] }
        return c.waiters
      }
      for waiter in waiters { waiter.resume() }
    }
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
