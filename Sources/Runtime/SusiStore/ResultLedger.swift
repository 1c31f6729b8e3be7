import SusiCore
import SusiJSON

/// Which events still owe results, and the caller's correlation id to stamp on each result.
///
/// Every effect yields exactly one result, except `.cancel` and `.supersede`, which report nothing
/// of their own (`Effect.owesResult`).
/// An id travels through chains: a planned answer is caused by the answer that carried it, which
/// was caused by the query that had the id.
public struct ResultLedger: Sendable {
  /// Internal so snapshots (Recovered+Snapshot) can save and restore it. In seq order: the
  /// events that owe results are the recent ones, added in increasing seq.
  var owed = SeqMap<(id: JSON?, results: Int)>()

  public init() {}

  /// Notes what the event `seq` (correlation id `id`) is owed: one result per effect, and the
  /// results the reducer gave at once (logged right after it).
  mutating func expect(_ seq: Int, id: JSON?, reaction: Reaction) {
    let results = reaction.resultsOwedByEffects + reaction.results.count
    if results > 0 { owed[seq] = (id, results) }
  }

  /// Records a result of `cause`, forgetting the cause once it is paid up.
  mutating func settle(_ cause: Int) {
    owed.modifyValue(forKey: cause) { entry in
      if let results = entry?.results, results > 1 {
        entry?.results = results - 1
      } else {
        entry = nil
      }
    }
  }

  /// The id to stamp on a result of `cause` (the ledger is settled when that result is folded in).
  func id(owedBy cause: Int) -> JSON? { owed[cause]?.id }

  /// True while the event `seq` still owes a result.
  public func owes(_ seq: Int) -> Bool { owed[seq] != nil }

  /// How many events still owe results.
  public var count: Int { owed.count }
}
