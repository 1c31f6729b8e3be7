import Glibc
import Synchronization

/// The time source the server measures its deadlines with.
///
/// The server reads `now()` once per event-loop turn. Tests inject an `HTTPManualClock` so that
/// timeouts fire when the test says so, without sleeping.
public protocol HTTPServerClock: Sendable {
  /// The current time, as a duration since an arbitrary fixed origin.
  func now() -> Duration

  /// Called once per event loop when the server starts. A clock whose time jumps calls `settle`
  /// around each jump; it returns once that loop has handled everything already sent to it and
  /// checked its deadlines. Real clocks ignore it.
  func addObserver(_ settle: @escaping @Sendable () async -> Void)
}

extension HTTPServerClock {
  /// Real clocks need no observers: their loops wake up on their own at the next deadline.
  public func addObserver(_ settle: @escaping @Sendable () async -> Void) {}
}

/// The system's monotonic clock (`CLOCK_MONOTONIC`); the default.
public struct HTTPSystemClock: HTTPServerClock {
  /// Creates the system clock.
  public init() {}

  /// The time since boot.
  public func now() -> Duration {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
  }
}

/// A clock that only moves when told to; for deterministic timeout tests.
///
/// ```swift
/// let clock = HTTPManualClock()
/// let server = HTTPServer(configuration: .init(clock: clock), handler: handler)
/// // … send half a request head …
/// await clock.advance(by: .seconds(10))  // the server has now answered 408
/// ```
public final class HTTPManualClock: HTTPServerClock {
  private struct State {
    var now: Duration = .zero
    var observers: [@Sendable () async -> Void] = []
  }
  private let state = Mutex(State())

  /// Creates a clock that reads zero until advanced.
  public init() {}

  /// The time this clock has been advanced to.
  public func now() -> Duration { state.withLock { $0.now } }

  /// Records a server loop to settle around each `advance`.
  public func addObserver(_ settle: @escaping @Sendable () async -> Void) {
    state.withLock { $0.observers.append(settle) }
  }

  /// Moves time forward by `duration`. Every attached loop first handles what was already sent
  /// to it at the old time; then time moves; then every loop checks its deadlines. When this
  /// returns, whatever the deadlines caused (a 408, a closed connection) has been done.
  public func advance(by duration: Duration) async {
    let observers = state.withLock { $0.observers }
    for settle in observers { await settle() }
    state.withLock { $0.now += duration }
    for settle in observers { await settle() }
  }
}
