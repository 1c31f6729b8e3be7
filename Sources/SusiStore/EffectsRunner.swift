import SusiCore

/// Performs effects: the only place where susi touches the world.
///
/// The store calls `start` once per effect, right after the event that asked for it has been
/// logged and reduced. The runner works in the background and reports each outcome — success or
/// failure — as exactly one result action through `deliver`; the store logs that result with
/// `cause` = `cause`. (`.cancel` is the exception: it produces no result of its own; the
/// cancelled request reports `requestFailed {kind: "cancelled"}`.)
public protocol EffectsRunner: Sendable {
  /// The result of `effect` when the runner can give it without any I/O (a rejection, a server
  /// switch): the store then logs it at once, in the same turn, instead of waiting for a
  /// delivery. Nil means "start it". The default answers nothing at once.
  func answerAtOnce(_ effect: Effect) -> Action?

  /// Begins `effect`, asked for by the event with seq `cause`.
  func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery)

  /// Returns once every started effect has delivered its result, or after `timeout`
  /// (seconds); true when idle.
  func waitUntilIdle(timeout: Double) async -> Bool

  /// Stops everything: pending effects are cancelled and deliver nothing more.
  func shutdown() async
}

extension EffectsRunner {
  public func answerAtOnce(_ effect: Effect) -> Action? { nil }
}

/// How a runner hands a result back to the store.
public typealias ResultDelivery = @Sendable (Action) async -> Void

/// Where the store reads the time it stamps on events.
public protocol WallClock: Sendable {
  func now() -> Timestamp
}
