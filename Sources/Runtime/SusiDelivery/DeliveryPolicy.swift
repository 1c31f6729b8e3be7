public import SusiHTTPClient

/// How deliveries are timed: attempt timeout, retry schedule, batching of cursor writes.
public struct DeliveryPolicy: Sendable, Equatable {
  /// Waits before the 2nd, 3rd, … attempt, in milliseconds; the last one repeats for ever
  /// (delivery is at least once, so an event is never given up). The default follows Standard
  /// Webhooks: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h.
  public var retryDelays: [Int64]
  /// Up to this fraction is added to each wait at random, so retries of many senders spread.
  public var jitter: Double
  /// Longest wait for one attempt, in seconds.
  public var timeout: Double
  /// The longest `Retry-After` honoured, in milliseconds.
  public var maximumRetryAfter: Int64
  /// Events read from the log per step.
  public var batchSize: Int
  /// The cursor is written at least every this many events (and whenever the subscriber has
  /// caught up, and at least once a second while it has not).
  public var cursorSaveInterval: Int
  /// Which subscriber addresses may be posted to: by default no loopback, link-local, private
  /// or metadata address, checked on every attempt after the name is resolved.
  public var targets: TargetPolicy

  /// A policy; every argument has the documented default.
  public init(
    retryDelays: [Int64] = [
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000,
      86_400_000,
    ],
    jitter: Double = 0.1, timeout: Double = 15, maximumRetryAfter: Int64 = 86_400_000,
    batchSize: Int = 64,
    cursorSaveInterval: Int = 64, targets: TargetPolicy = TargetPolicy()
  ) {
    self.targets = targets
    self.retryDelays = retryDelays
    self.jitter = jitter
    self.timeout = timeout
    self.maximumRetryAfter = maximumRetryAfter
    self.batchSize = batchSize
    self.cursorSaveInterval = cursorSaveInterval
  }

  /// The wait after failed attempt number `failures` (1 = the first attempt failed), at least
  /// `retryAfter` when the subscriber asked for one.
  public func delay(afterFailures failures: Int, retryAfter: Int64? = nil, random: Double = 0)
    -> Int64
  {
    let base = retryDelays.isEmpty ? 1000 : retryDelays[min(failures, retryDelays.count) - 1]
    let jittered = base + Int64(Double(base) * jitter * min(max(random, 0), 1))
    guard let retryAfter else { return jittered }
    return max(jittered, min(retryAfter, maximumRetryAfter))
  }
}
