#if canImport(Glibc)
  import Glibc
#endif

/// The webhook frontend's sense of time: Unix seconds for signatures, and sleeping for retry
/// backoff and bounded waits. Injected, so tests move time by hand instead of waiting.
public protocol ServeClock: Sendable {
  /// Seconds since 1970 (what `webhook-timestamp` carries).
  func unixSeconds() -> Int64
  /// Suspends for `milliseconds` of this clock's time; throws `CancellationError` when the
  /// task is cancelled.
  func sleep(milliseconds: Int64) async throws
}

/// The machine's clocks: real time for timestamps, a monotonic clock for sleeping.
public struct SystemServeClock: ServeClock {
  public init() {}

  public func unixSeconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec)
  }

  public func sleep(milliseconds: Int64) async throws {
    guard milliseconds > 0 else {
      try Task.checkCancellation()
      return
    }
    try await Task.sleep(for: .milliseconds(milliseconds))
  }
}
