import Foundation
import Synchronization

/// Where the server reads the time. Tests pass a `ManualClock` so expiry, lockouts and dates are
/// exact; the running server uses the system clock.
public struct ServerClock: Sendable {
  private let read: @Sendable () -> Date

  /// A clock that asks `read` for the time.
  public init(_ read: @escaping @Sendable () -> Date) { self.read = read }

  /// The wall clock.
  public static let system = ServerClock { Date() }

  /// The current time.
  public var now: Date { read() }
}

/// A clock that stands still until told to move, for tests.
public final class ManualClock: Sendable {
  private let current: Mutex<Date>

  /// Starts at `start` (default: 2020-09-07T21:16:14Z, a date from the real server's captures).
  public init(start: Date = Date(timeIntervalSince1970: 1_599_513_374)) {
    current = Mutex(start)
  }

  /// The time the clock shows.
  public var now: Date { current.withLock { $0 } }

  /// Moves the clock forward by `seconds`.
  public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

  /// A `ServerClock` that reads this clock.
  public var serverClock: ServerClock { ServerClock { [self] in self.now } }
}
