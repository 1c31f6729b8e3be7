import SusiCore
import SusiJSON

/// Carries a caller's correlation id from an event to every result it causes, directly or
/// through a chain (a planned answer is caused by the answer that carried it).
///
/// For each event with an id, it counts the results still owed: one per effect, except
/// `.cancel`, which reports nothing of its own.
public struct Correlation: Sendable {
  private var owed: [Int: (id: JSON, results: Int)] = [:]

  public init() {}

  /// Notes that the event `seq` with correlation id `id` asked for `effects`.
  mutating func expect(_ seq: Int, id: JSON?, effects: [Effect]) {
    guard let id else { return }
    let results = effects.count { if case .cancel = $0 { false } else { true } }
    if results > 0 { owed[seq] = (id, results) }
  }

  /// The id to stamp on a result caused by `cause`; forgets the cause once it is paid up.
  mutating func resolve(_ cause: Int) -> JSON? {
    guard let entry = owed[cause] else { return nil }
    if entry.results <= 1 { owed[cause] = nil } else { owed[cause] = (entry.id, entry.results - 1) }
    return entry.id
  }

  /// How many events still wait for results (for tests).
  var count: Int { owed.count }
}
