public import SusiCore
public import SusiJSON
public import SusiStore

/// What an action checked against the access rules produced once appended.
public struct SentAction: Sendable {
  /// The event as the log recorded it.
  public var published: PublishedEvent
  /// The access state right after the action was applied.
  public var access: AccessControl
}

/// Why an action was not appended.
public enum SendRefusal: Error {
  /// The log accepts nothing more.
  case store(StoreError)
  /// The access rules refuse the action.
  case access(AccessProblem)
  /// The runner has all the work it may queue (`Store.isFull`): nothing was appended.
  case busy
}

extension Store {
  /// Checks `action` against the access rules and sends it, in one step, so no other change
  /// can slip between the decision and the append: what is refused here appends nothing, and
  /// what is appended the reducer accepts.
  ///
  /// With `refusingWhenFull`, an intake's backpressure is decided in the same turn of the store:
  /// while the store is full, the action is refused as `.busy`, unless `idempotencyKey` was
  /// already used (a retry of an accepted action, answered from the log as a duplicate).
  public func sendChecked(
    _ action: Action, origin: EventOrigin, id: JSON? = nil, idempotencyKey: String? = nil,
    refusingWhenFull: Bool = false
  ) async throws(SendRefusal) -> SentAction {
    if refusingWhenFull && isFull
      && idempotencyKey.map({ seq(forIdempotencyKey: $0) == nil }) ?? true
    {
      throw .busy
    }
    if let problem = state.access.problem(action) { throw .access(problem) }
    do {
      let published = try await send(action, origin: origin, id: id, idempotencyKey: idempotencyKey)
      return SentAction(published: published, access: state.access)
    } catch {
      throw .store(error)
    }
  }
}
