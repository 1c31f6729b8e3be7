/// Applies one event to the state and returns what it decided: the work it asks for, and the
/// results it gives at once.
///
/// Pure: no I/O, no clock (time is `event.at`), no randomness. Replaying a log through this
/// function rebuilds exactly the state the live run had. Invalid intents change nothing and are
/// answered at once with `actionRejected`; a server switch with `serverChanged`.
public func reduce(_ state: inout State, _ event: Event) -> Reaction {
  // The switch over every action, naming each one's reducer method, is in `Action.swift`.
  event.action.reduce(into: &state, event)
}

/// What the reducer decided about one event: the work it asks the effects runner to do, and the
/// results it gives at once, without any I/O (a refusal, a server switch).
///
/// The store logs the results straight after their cause, in the same turn, and replay drops
/// both, since they already happened. Written as an array literal it holds effects only, which
/// is what most events ask for.
public struct Reaction: Equatable, Sendable, ExpressibleByArrayLiteral {
  // Most events ask for one effect or none, and replay only counts them: the first is held
  // here, not in a list, which would cost an allocation and its release per intent.
  private var firstEffect: Optional<Effect>
  /// The effects after the first, in order.
  private var laterEffects: [Effect]
  /// Results decided here; each is logged with the event as its cause.
  public var results: [Action]

  public init(effects: [Effect] = [], results: [Action] = []) {
    firstEffect = effects.first
    laterEffects = effects.count > 1 ? Array(effects.dropFirst()) : []
    self.results = results
  }

  /// One effect and no result: what most intents decide.
  init(_ effect: Effect) {
    firstEffect = effect
    laterEffects = []
    results = []
  }

  public init(arrayLiteral effects: Effect...) { self.init(effects: effects) }

  /// Work for the effects runner; each comes back as one result action.
  public var effects: [Effect] {
    guard let firstEffect else { return [] }
    return [firstEffect] + laterEffects
  }

  /// How many results the effects runner owes for these effects, counted without making the
  /// list (nor a copy of the first effect).
  public var resultsOwedByEffects: Int {
    (firstEffect?.owesResult == true ? 1 : 0) + laterEffects.count(where: \.owesResult)
  }

  /// The event is refused for `reason`: nothing changes, and `actionRejected` says why.
  public static func rejected(_ reason: String) -> Reaction {
    rejected(.invalid, reason)
  }

  /// The event is refused for `reason`, of `kind`.
  static func rejected(_ kind: Action.ActionRejected.Kind, _ reason: String) -> Reaction {
    Reaction(results: [.actionRejected(Action.ActionRejected(kind, reason))])
  }
}

// Bookkeeping shared by every request: in-flight tracking, superseding, errors, cancellation.

extension State {
  /// Records that the event asked for a request about `subject`, superseding an older one with
  /// the same key (as the intent's `ActionSpec.supersedes` says). The effect is taken, not
  /// borrowed: the reaction holds it without a copy (a retain and a release of each of its
  /// members).
  mutating func start(
    _ intent: ActionType, _ event: Event, about subject: String? = nil, _ effect: consuming Effect
  ) -> Reaction {
    var effects: [Effect] = []
    let key = intent.spec.supersedingKey(about: subject)
    if let key {
      for seq in inFlight.seqs(withKey: key) { effects.append(.supersede(seq: seq)) }
    }
    inFlight[event.seq] = InFlightRequest(type: .intent(intent), since: event.at, key: key)
    guard !effects.isEmpty else { return Reaction(effect) }
    effects.append(effect)
    return Reaction(effects: effects)
  }

  /// Ends the request that caused a successful result, when `intent` asked for it (or, with
  /// `orPlannedAnswer`, when it is a planned answer's wait), clearing that request type's error.
  /// Returns the request it ended, if any.
  @discardableResult
  mutating func finish(
    _ event: Event, completing intent: ActionType, orPlannedAnswer: Bool = false
  ) -> InFlightRequest? {
    guard let cause = event.cause,
      let request = inFlight.removeValue(
        forKey: cause,
        where: { $0.intent == intent || (orPlannedAnswer && $0.isPlannedAnswer) })
    else { return nil }
    // Most of the time there is no error to clear: spare hashing the name.
    if !lastErrors.isEmpty { lastErrors[request.type.rawValue] = nil }
    return request
  }

  /// A result that only ends its request.
  mutating func finished(_ event: Event, completing intent: ActionType) -> Reaction {
    finish(event, completing: intent)
    return []
  }

  mutating func cancelRequest(_ p: Action.CancelRequest, _ event: Event) -> Reaction {
    guard inFlight[p.seq] != nil else {
      return .rejected("nothing is in flight for seq \(p.seq)")
    }
    return [.cancel(seq: p.seq)]
  }

  mutating func requestFailed(_ p: Action.RequestFailed, _ event: Event) -> Reaction {
    let request = inFlight.removeValue(forKey: p.cause)
    // Asked for: neither is an error worth keeping.
    guard p.error.kind != .cancelled && p.error.kind != .superseded else { return [] }
    lastErrors[request?.type.rawValue ?? "unknown"] = p.error.scrubbed
    if p.error.kind == .unauthorized, let session,
      let intent = request?.intent, intent.spec.needsLogin
    {
      return [
        .logout(
          server: server,
          reason: "the server no longer accepts the session of \(session.email); log in again")
      ]
    }
    return []
  }

  /// Why an intent of `type` cannot go ahead now for want of a login, with the effects that says
  /// so; nil when it can (or when it needs no login).
  func loginProblem(_ event: Event, for type: ActionType) -> Reaction? {
    guard let what = type.spec.loginPurpose else { return nil }
    guard let session else {
      return .rejected(.needsLogin, Action.ActionRejected.Kind.needsLoginWording + what)
    }
    if session.isExpired(at: event.at) {
      let reason =
        "the session of \(session.email) expired at \(session.expiresAt!)"
        + Action.ActionRejected.Kind.loginAgainWording
      return Reaction(
        effects: [.logout(server: server, reason: "session expired")],
        results: [.actionRejected(Action.ActionRejected(.needsLogin, reason))])
    }
    return nil
  }
}
