import Synchronization

/// How many delivery attempts ended each way, by subscriber, for whoever reports them (the
/// webhook frontend's `/metrics`).
public final class DeliveryCounters: Sendable {
  /// How one attempt ended.
  public enum Outcome: String, Sendable {
    /// The subscriber took the event (2xx).
    case delivered
    /// Any other answer, or no answer; the attempt is retried.
    case failed
    /// The subscriber said it is gone (410); deliveries to it stop.
    case gone
  }

  /// The subscriber and outcome a count is kept for.
  public struct Key: Hashable, Sendable {
    /// The subscriber's id.
    public var subscriber: String
    /// How the attempts ended.
    public var outcome: Outcome
  }

  private let counts = Mutex<[Key: Int]>([:])

  /// Counters at zero.
  public init() {}

  /// Counts one attempt for `subscriber`.
  public func record(_ subscriber: String, _ outcome: Outcome) {
    counts.withLock { $0[Key(subscriber: subscriber, outcome: outcome), default: 0] += 1 }
  }

  /// Every count so far.
  public var all: [Key: Int] { counts.withLock { $0 } }

  /// How many attempts for `subscriber` ended with `outcome`.
  public func count(_ subscriber: String, _ outcome: Outcome) -> Int {
    counts.withLock { $0[Key(subscriber: subscriber, outcome: outcome)] ?? 0 }
  }
}
