import SusiCore
import SusiJSON
import SusiStore

/// What sending an action through the webhook frontend produced.
struct SentAction: Sendable {
  var published: PublishedEvent
  /// The access state right after the action was applied.
  var access: AccessControl
}

/// Why an action was not appended.
enum SendRefusal: Error {
  case store(StoreError)
  case access(AccessProblem)
}

extension Store {
  /// Checks `action` against the access rules and sends it, in one step, so no other change
  /// can slip between the decision and the append: what is refused here appends nothing, and
  /// what is appended the reducer accepts.
  func sendChecked(
    _ action: Action, origin: EventOrigin, id: JSON? = nil, idempotencyKey: String? = nil
  ) throws(SendRefusal) -> SentAction {
    if let problem = state.access.problem(action) { throw .access(problem) }
    do {
      let published = try send(action, origin: origin, id: id, idempotencyKey: idempotencyKey)
      return SentAction(published: published, access: state.access)
    } catch {
      throw .store(error)
    }
  }
}
