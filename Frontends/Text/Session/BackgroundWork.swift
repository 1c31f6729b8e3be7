import Synchronization

/// Runs work started outside the command being run (a planned answer printed when it arrives,
/// what another susi asked) one piece after another, in the order it was started, and counts
/// it, so the program can wait for it before it exits.
final class BackgroundWork: Sendable {
  /// The pieces started and not yet ended, and the piece started last: the next one waits for
  /// it, so output keeps the log's order, and it ends after every piece started before it.
  private let pieces = Mutex<(running: Int, last: Task<Void, Never>?)>((0, nil))

  /// Runs `work` after everything started before it, counted until it ends.
  func start(_ work: @escaping @Sendable () async -> Void) {
    pieces.withLock { pieces in
      pieces.running += 1
      let previous = pieces.last
      pieces.last = Task {
        await previous?.value
        await work()
        self.pieces.withLock { $0.running -= 1 }
      }
    }
  }

  /// Returns once nothing is running.
  func waitUntilIdle() async {
    while let last = pieces.withLock({ $0.running == 0 ? nil : $0.last }) { await last.value }
  }

  var isIdle: Bool { pieces.withLock { $0.running == 0 } }
}
