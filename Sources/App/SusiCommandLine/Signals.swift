import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Hands signals to a handler on a dispatch queue instead of letting them end the process, so
/// a signal never lands in the middle of a log write: the handler decides what to do and the
/// program leaves through its normal, orderly exit. `cancel` gives the signals back their
/// default action.
public final class SignalCatcher: @unchecked Sendable {
  // Dispatch sources are thread-safe; they are kept here to stay alive and to be cancelled.
  private let sources: [any DispatchSourceSignal]
  private let numbers: [Int32]

  /// Starts handling `numbers` with `handler` (called once per burst of each signal).
  public init(_ numbers: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
    let queue = DispatchQueue(label: "susi.signals")
    self.numbers = numbers
    sources = numbers.map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler { handler(number) }
      source.resume()
      return source
    }
  }

  /// Stops handling the signals: their default action (ending the process) applies again.
  public func cancel() {
    for source in sources { source.cancel() }
    for number in numbers { signal(number, SIG_DFL) }
  }
}

/// Catches SIGINT and SIGTERM, so `susi server`, `susi serve`, `susi web` and `susi jsonl` stop
/// cleanly instead of being killed; a second signal ends the process at once (exit 128+N), so a
/// stop that waits too long can always be cut short. The log stays readable either way.
///
/// Install it before announcing that the server is up: a signal that arrives at any moment
/// afterwards is kept until `wait` asks for it.
public final class ShutdownSignal: @unchecked Sendable {
  private let state = Mutex<(signal: Int32?, waiter: CheckedContinuation<Int32?, Never>?)>(
    (nil, nil))
  private var catcher: SignalCatcher?

  /// From now on SIGINT and SIGTERM no longer end the process by themselves.
  public init() {
    catcher = SignalCatcher([SIGINT, SIGTERM]) { [weak self] in self?.received($0) }
  }

  deinit {
    catcher?.cancel()
  }

  private func received(_ number: Int32) {
    let waiter = state.withLock { s -> CheckedContinuation<Int32?, Never>? in
      guard s.signal == nil else { _exit(128 + number) }
      s.signal = number
      let waiter = s.waiter
      s.waiter = nil
      return waiter
    }
    waiter?.resume(returning: number)
  }

  /// Returns the first signal that arrived, waiting for one if none has yet; nil when the
  /// waiting task is cancelled first.
  public func wait() async -> Int32? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
        let arrived = state.withLock { s -> Int32?? in
          if let signal = s.signal { return .some(signal) }
          if Task.isCancelled { return .some(nil) }
          s.waiter = continuation
          return .none
        }
        if let arrived { continuation.resume(returning: arrived) }
      }
    } onCancel: {
      let waiter = state.withLock { s -> CheckedContinuation<Int32?, Never>? in
        defer { s.waiter = nil }
        return s.waiter
      }
      waiter?.resume(returning: nil)
    }
  }
}
