import SusiCore
import SusiStore

#if canImport(Glibc)
  import Glibc
#endif

/// The runner's sense of time: the wall clock (token expiry, `Retry-After` dates) and sleeping
/// (backoff, deadlines, planned answers). Injected, so tests advance time by hand instead of
/// waiting for it.
public protocol RunnerClock: WallClock {
  /// Suspends the calling task for `milliseconds` of this clock's time.
  ///
  /// Throws `CancellationError` as soon as the task is cancelled.
  func sleep(milliseconds: Int64) async throws
}

/// The machine's clocks: real time for `now`, a monotonic clock for sleeping.
public struct SystemClock: RunnerClock {
  /// The system clock.
  public init() {}

  /// The current UTC time.
  public func now() -> Timestamp {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Timestamp(milliseconds: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
  }

  /// Sleeps on the monotonic clock; a cancelled sleep frees its timer at once.
  public func sleep(milliseconds: Int64) async throws {
    try await TimerSleeper.shared.sleep(milliseconds: milliseconds)
  }
}
