/// Where a component reads the time and waits for it to pass. Injected everywhere, so tests move
/// time by hand (`ManualTimeSource`) instead of waiting for it; programs use `SystemTimeSource`.
public protocol TimeSource: Sendable {
  /// Wall-clock time: milliseconds since 1970-01-01T00:00:00Z. It may jump either way when the
  /// machine's clock is set, so durations are measured with `monotonicTime()` instead.
  func millisecondsSince1970() -> Int64

  /// Time since an arbitrary fixed origin. It never goes back; deadlines are measured on it.
  func monotonicTime() -> Duration

  /// Suspends the calling task for `milliseconds` of monotonic time.
  ///
  /// Throws `CancellationError` as soon as the task is cancelled.
  func sleep(milliseconds: Int64) async throws

  /// Called once per event loop of a server that wakes itself at its next deadline. A time
  /// source whose time jumps calls `settle` around each jump; `settle` returns once that loop has
  /// handled everything already sent to it and checked its deadlines. Real time sources ignore it.
  func addObserver(_ settle: @escaping @Sendable () async -> Void)
}

extension Duration {
  /// This duration in whole milliseconds, rounded down.
  var wholeMilliseconds: Int64 {
    let (seconds, attoseconds) = components
    let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
    let below = attoseconds < 0 && attoseconds % attosecondsPerMillisecond != 0 ? 1 : 0
    return seconds * 1000 + attoseconds / attosecondsPerMillisecond - Int64(below)
  }
}
