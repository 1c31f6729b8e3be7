import Synchronization

/// How long the store's appends take and how far behind the log it follows what other
/// processes or nodes append, for `/metrics`: cumulative histograms in seconds.
public final class LogTimings: Sendable {
  /// A cumulative histogram: how many observations fell at or under each bound.
  public struct Histogram: Sendable, Equatable {
    /// Upper bounds, in seconds, ascending (the last bucket, +Inf, is `count`).
    public let bounds: [Double]
    /// Observations at or under each bound (not cumulative; see `cumulative`).
    public var counts: [Int]
    public var count = 0
    public var sum = 0.0

    init(bounds: [Double]) {
      self.bounds = bounds
      counts = Array(repeating: 0, count: bounds.count)
    }

    mutating func observe(_ seconds: Double) {
      count += 1
      sum += seconds
      if let index = bounds.firstIndex(where: { seconds <= $0 }) { counts[index] += 1 }
    }

    /// Observations at or under each bound, as Prometheus counts them.
    public var cumulative: [Int] {
      var total = 0
      return counts.map {
        total += $0
        return total
      }
    }
  }

  struct State {
    var append = Histogram(bounds: [
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
    ])
    // Event times are in milliseconds, so the finest bound is one.
    var followLag = Histogram(bounds: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5])
    var lastFollowLag: Double?
  }

  private let state = Mutex(State())

  public init() {}

  /// Notes one append that took `duration` (from asking the log to append to its answer).
  public func appended(in duration: Duration) {
    let (seconds, attoseconds) = duration.components
    let value = Double(seconds) + Double(attoseconds) / 1e18
    state.withLock { $0.append.observe(value) }
  }

  /// Notes that an event another process appended was applied here `milliseconds` after it
  /// was stamped (clocks of different machines may disagree: a negative lag counts as 0).
  public func followed(lagMilliseconds: Int64) {
    let seconds = Double(max(0, lagMilliseconds)) / 1000
    state.withLock {
      $0.followLag.observe(seconds)
      $0.lastFollowLag = seconds
    }
  }

  /// The appends so far.
  public var appendLatency: Histogram { state.withLock { $0.append } }
  /// The lag of each event followed from another process so far.
  public var followLag: Histogram { state.withLock { $0.followLag } }
  /// The lag of the last event followed from another process (nil: none yet).
  public var lastFollowLag: Double? { state.withLock { $0.lastFollowLag } }
}
