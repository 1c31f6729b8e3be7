import SusiCore
import SusiJSON
import SusiStore

/// What sending an action through the webhook frontend produced.
struct SentAction: Sendable {
  var published: PublishedEvent
  /// How many results the action's effects will report (its `.cancel` effects report none).
  var owedResults: Int
  /// The access state right after the action was applied.
  var access: AccessControl
}

/// Why an action was not appended.
enum SendRefusal: Error {
  case store(StoreError)
  case access(AccessProblem)
}

extension Store {
  /// The seq of the last event and a subscription to every later one, taken in one step so
  /// that no event falls between them.
  func followFromNow() -> (lastSeq: Int, events: AsyncStream<PublishedEvent>) {
    (lastSeq, subscribe())
  }

  /// Checks `action` against the access rules and sends it, in one step, so no other change
  /// can slip between the decision and the append: what is refused here appends nothing, and
  /// what is appended the reducer accepts.
  func sendChecked(
    _ action: Action, origin: String, id: JSON? = nil, idempotencyKey: String? = nil,
    countResults: Bool = false
  ) throws(SendRefusal) -> SentAction {
    if let problem = state.access.problem(action) { throw .access(problem) }
    // Holding a copy makes the store's next change copy what it touches, so take one only
    // when the results are to be counted.
    let before = countResults ? state : nil
    let published: PublishedEvent
    do {
      published = try send(action, origin: origin, id: id, idempotencyKey: idempotencyKey)
    } catch {
      throw .store(error)
    }
    var owed = 0
    if var replica = before {
      // The reducer is pure, so applying the event to the state before it gives the same effects.
      owed = reduce(&replica, published.event).count {
        if case .cancel = $0 { false } else { true }
      }
    }
    return SentAction(published: published, owedResults: owed, access: state.access)
  }
}
