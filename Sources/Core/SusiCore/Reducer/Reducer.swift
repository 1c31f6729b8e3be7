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
