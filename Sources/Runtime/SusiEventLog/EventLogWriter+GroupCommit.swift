import Dispatch
import Synchronization

/// What an append asks of the background flusher.
enum FlushRequest {
  case none
  /// Start a flush once the group-commit delay has passed.
  case afterDelay(Duration)
  /// Start a flush now: enough records are waiting.
  case now
}

extension WriterState {
  /// Counts a record written under the `batch` policy and says whether a flush must be started.
  mutating func recordWritten(groupCommit: EventLogGroupCommit) -> FlushRequest {
    unsyncedRecords += 1
    if unsyncedRecords >= max(groupCommit.maxRecords, 1) {
      guard !immediateFlushPending else { return .none }
      immediateFlushPending = true
      return .now
    }
    guard !timedFlushPending else { return .none }
    timedFlushPending = true
    return .afterDelay(groupCommit.maxDelay)
  }
}

// Group commit: appends under `batch` return after `write()`; flushes run on `flushQueue`, one
// at a time, each covering every record written before it started.
extension EventLogWriter {
  func requestFlush(_ request: FlushRequest) {
    switch request {
    case .none:
      return
    case .now:
      flushQueue.async { [weak self] in self?.backgroundFlush() }
    case .afterDelay(let delay):
      let (seconds, attoseconds) = delay.components
      let wholeSeconds = min(max(Int(seconds), 0), 86_400)
      let nanoseconds = max(0, wholeSeconds * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
      // Weak: a writer dropped without `close()` is synced and closed by its deinit at once.
      flushQueue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
        self?.backgroundFlush()
      }
    }
  }

  /// A flush nobody waits for: a failure breaks the writer, and the next append reports it.
  private func backgroundFlush() {
    try? flushNow()
  }

  /// Runs `fdatasync` for everything written so far. Call only on `flushQueue`.
  func flushNow() throws(EventLogError) {
    let snapshot = try state.withLock { state throws(EventLogError) -> (Int32, Int)? in
      if let broken = state.broken { throw broken }
      state.timedFlushPending = false
      state.immediateFlushPending = false
      state.unsyncedRecords = 0
      guard state.fd >= 0, state.syncedLength < state.writtenLength else { return nil }
      return (state.fd, state.writtenLength)
    }
    guard let (fd, target) = snapshot else { return }
    do {
      try SystemCalls.dataSync(fd)
    } catch {
      throw state.withLock { state in breakWriter(state: &state, error, "in a background flush") }
    }
    state.withLock { state in state.syncedLength = max(state.syncedLength, target) }
  }
}
