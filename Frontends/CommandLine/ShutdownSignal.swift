import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Catches SIGINT and SIGTERM, so `susi server`, `susi serve`, `susi web` and `susi jsonl` stop
/// cleanly instead of being killed; a second signal ends the process at once (exit 128+N), so a
/// stop that waits too long can always be cut short. The log stays readable either way.
///
/// Install it before announcing that the server is up: a signal that arrives at any moment
/// afterwards is kept until `wait` asks for it.
public final class ShutdownSignal: @unchecked Sendable {
  private let state = Mutex<(signal: Int32?, waiter: CheckedContinuation<Int32?, Never>?)>(
    (nil, nil))
  private let queue = DispatchQueue(label: "susi.serve.signals")
  private var sources: [any DispatchSourceSignal] = []

  /// From now on SIGINT and SIGTERM no longer end the process by themselves.
  public init() {
    for number in [SIGINT, SIGTERM] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler { [weak self] in self?.received(number) }
      source.resume()
      sources.append(source)
    }
  }

  deinit {
    for source in sources { source.cancel() }
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
