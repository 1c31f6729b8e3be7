public import SusiCore

/// The idempotency keys still in force, each with the seq of the event first sent with it.
///
/// A key is kept for `window` after its event's `at` (24 hours by default, as payment APIs
/// do), and at most `limit` keys are kept (100,000 by default, about 20 MB): past that the
/// oldest goes first. Both are decided by event order and event time only, never by a clock,
/// so replaying a log rebuilds exactly the set the live store had. A key that has expired may
/// be used again: it then names the new event.
public struct IdempotencyKeys: Sendable {
  /// One remembered key, in the order the keys arrived.
  private struct Entry: Sendable {
    var key: String
    var seq: Int
    var at: Timestamp
  }

  /// The default window: 24 hours.
  public static let defaultWindowMilliseconds: Int64 = 24 * 60 * 60 * 1000
  /// The default most keys kept.
  public static let defaultLimit = 100_000

  /// How long a key is kept after its event, in milliseconds.
  public let windowMilliseconds: Int64
  /// The most keys kept at once.
  public let limit: Int
  private var byKey: [String: Entry] = [:]
  /// Oldest first; `order[head...]` are the live ones (some may be stale after a key was
  /// used again, and are skipped when they come up).
  private var order: [Entry] = []
  private var head = 0

  /// An empty set keeping keys for `windowMilliseconds` after their event, at most `limit`.
  public init(
    windowMilliseconds: Int64 = IdempotencyKeys.defaultWindowMilliseconds,
    limit: Int = IdempotencyKeys.defaultLimit
  ) {
    self.windowMilliseconds = windowMilliseconds
    self.limit = max(1, limit)
  }

  /// How many keys are kept now.
  public var count: Int { byKey.count }

  /// Every key kept, with the seq of its event (for checks and reports).
  public var seqsByKey: [String: Int] { byKey.mapValues(\.seq) }

  /// The seq of the event first sent with `key`, unless the key has expired by `now`.
  public func seq(for key: String, at now: Timestamp?) -> Int? {
    guard let entry = byKey[key] else { return nil }
    if let now, isExpired(entry, at: now) { return nil }
    return entry.seq
  }

  /// The keys kept, oldest first, with their event's seq and time: what a snapshot saves.
  public var entries: [(key: String, seq: Int, at: Timestamp)] {
    order[head...].filter { byKey[$0.key]?.seq == $0.seq }.map { ($0.key, $0.seq, $0.at) }
  }

  /// Adds a key read back from a snapshot; call in the order `entries` listed them.
  public mutating func restore(key: String, seq: Int, at: Timestamp) {
    let entry = Entry(key: key, seq: seq, at: at)
    byKey[key] = entry
    order.append(entry)
  }

  /// Folds in one event: forgets keys that expired by its time, then remembers its key, if it
  /// has one that is not already in force.
  public mutating func record(_ event: Event) {
    expire(at: event.at)
    guard let key = event.idempotencyKey else { return }
    if let entry = byKey[key], !isExpired(entry, at: event.at) { return }
    let entry = Entry(key: key, seq: event.seq, at: event.at)
    byKey[key] = entry
    order.append(entry)
    while byKey.count > limit { dropOldest() }
  }

  private func isExpired(_ entry: Entry, at now: Timestamp) -> Bool {
    now.milliseconds - entry.at.milliseconds >= windowMilliseconds
  }

  /// Times in a log never run backwards, so the expired keys are the oldest ones.
  private mutating func expire(at now: Timestamp) {
    while head < order.count, isExpired(order[head], at: now) { dropOldest() }
  }

  private mutating func dropOldest() {
    let oldest = order[head]
    head += 1
    // A key used again after it expired has a newer entry further on; keep that one.
    if byKey[oldest.key]?.seq == oldest.seq { byKey[oldest.key] = nil }
    // Give the dropped entries' room back once they are half the array.
    if head >= 1024 && head * 2 >= order.count {
      order.removeFirst(head)
      head = 0
    }
  }
}
