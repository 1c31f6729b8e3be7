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
    if let refusal = refusal(
      action, idempotencyKey: idempotencyKey, refusingWhenFull: refusingWhenFull)
    {
      throw refusal
    }
    do {
      let published = try await send(action, origin: origin, id: id, idempotencyKey: idempotencyKey)
      return SentAction(published: published, access: state.access)
    } catch {
      throw .store(error)
    }
  }

  /// Why `action` may not be appended now, if it may not: the store is full and the intake
  /// refuses when it is (unless `idempotencyKey` was used already: a retry, answered from the
  /// log), or the access rules refuse it.
  private func refusal(_ action: Action, idempotencyKey: String?, refusingWhenFull: Bool)
    -> SendRefusal?
  {
    if refusingWhenFull && isFull
      && idempotencyKey.map({ seq(forIdempotencyKey: $0) == nil }) ?? true
    {
      return .busy
    }
    if let problem = state.access.problem(action) { return .access(problem) }
    return nil
  }
}

/// One intent of `Store.sendCheckedBatch`: what `sendChecked` takes.
public struct CheckedIntent: Sendable {
  public var intent: BatchedIntent
  public var refusingWhenFull: Bool

  public init(
    _ action: Action, origin: EventOrigin, id: JSON? = nil, idempotencyKey: String? = nil,
    refusingWhenFull: Bool = false
  ) {
    intent = BatchedIntent(
      action: action, origin: origin, id: id, idempotencyKey: idempotencyKey)
    self.refusingWhenFull = refusingWhenFull
  }
}

extension Store {
  /// `sendChecked` for several intents at once, in order: each is checked in the same turn as
  /// its append and sees what the ones before it changed, and their events reach the log in
  /// one write (see `sendBatch`). Returns, per intent, what `sendChecked` would have.
  public func sendCheckedBatch(_ intents: [CheckedIntent]) async -> [Result<
    SentAction, SendRefusal
  >] {
    var access = [AccessControl?](repeating: nil, count: intents.count)
    var refusals = [SendRefusal?](repeating: nil, count: intents.count)
    let results = await sendBatch(
      intents.map(\.intent),
      admit: { index -> Bool in
        let checked = intents[index]
        refusals[index] = refusal(
          checked.intent.action, idempotencyKey: checked.intent.idempotencyKey,
          refusingWhenFull: checked.refusingWhenFull)
        return refusals[index] == nil
      },
      applied: { index in access[index] = state.access })
    return results.enumerated().map { index, result in
      switch result {
      case .success(let published):
        .success(SentAction(published: published, access: access[index] ?? state.access))
      case .failure(.refused):
        .failure(refusals[index] ?? .store(.logFailed("the intent was refused without a reason")))
      case .failure(.store(let error)): .failure(.store(error))
      }
    }
  }
}
