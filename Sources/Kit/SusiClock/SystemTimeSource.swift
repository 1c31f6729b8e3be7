import Glibc

/// The machine's clocks: `CLOCK_REALTIME` for wall time, `CLOCK_MONOTONIC` for deadlines, and
/// cancellable dispatch timers for sleeping.
public struct SystemTimeSource: TimeSource {
  /// The machine's time source.
  public init() {}

  /// The current UTC time.
  public func millisecondsSince1970() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
  }

  /// The time since boot.
  public func monotonicTime() -> Duration {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
  }

  /// Sleeps on the monotonic clock; a cancelled sleep frees its timer at once.
  public func sleep(milliseconds: Int64) async throws {
    try await TimerSleeper.shared.sleep(milliseconds: milliseconds)
  }

  /// Needs no observers: server loops wake up on their own at their next deadline.
  public func addObserver(_ settle: @escaping @Sendable () async -> Void) {}
}
