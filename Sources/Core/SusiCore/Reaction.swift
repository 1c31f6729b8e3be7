/// What the reducer decided about one event: the work it asks the effects runner to do, and the
/// results it gives at once, without any I/O (a refusal, a server switch).
///
/// The store logs the results straight after their cause, in the same turn, and replay drops
/// both, since they already happened. Written as an array literal it holds effects only, which
/// is what most events ask for.
public struct Reaction: Equatable, Sendable, ExpressibleByArrayLiteral {
  /// Work for the effects runner; each comes back as one result action.
  public var effects: [Effect]
  /// Results decided here; each is logged with the event as its cause.
  public var results: [Action]

  public init(effects: [Effect] = [], results: [Action] = []) {
    self.effects = effects
    self.results = results
  }

  public init(arrayLiteral effects: Effect...) { self.init(effects: effects) }

  /// The event is refused for `reason`: nothing changes, and `actionRejected` says why.
  public static func rejected(_ reason: String) -> Reaction {
    rejected(.invalid, reason)
  }

  /// The event is refused for `reason`, of `kind`.
  static func rejected(_ kind: Action.ActionRejected.Kind, _ reason: String) -> Reaction {
    Reaction(results: [.actionRejected(Action.ActionRejected(kind, reason))])
  }
}
