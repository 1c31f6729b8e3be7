public import SusiCore

/// Performs effects: the only place where susi touches the world.
///
/// The store calls `start` once per effect, right after the event that asked for it has been
/// logged and reduced. The runner works in the background and reports each outcome — success or
/// failure — as exactly one result action through `deliver`; the store logs that result with
/// `cause` = `cause`. (`.cancel` is the exception: it produces no result of its own; the
/// cancelled request reports `requestFailed {kind: "cancelled"}`.)
public protocol EffectsRunner: Sendable {
  /// Begins `effect`, asked for by the event with seq `cause`.
  func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery)

  /// Returns once every started effect has delivered its result, or after `timeout`
  /// (seconds); true when idle.
  func waitUntilIdle(timeout: Double) async -> Bool

  /// Stops everything: pending effects are cancelled and deliver nothing more.
  func shutdown() async

  /// Where the runner's effects run, if they prefer one thread (the HTTP client's event loop):
  /// a frontend that sends its intents from a task preferring it too keeps the whole of a
  /// request (intent, request, reply, result) on that thread, with no other thread woken.
  var preferredTaskExecutor: (any TaskExecutor)? { get }
}

extension EffectsRunner {
  public var preferredTaskExecutor: (any TaskExecutor)? { nil }
}

/// How a runner hands a result back to the store.
public typealias ResultDelivery = @Sendable (Action) async -> Void
