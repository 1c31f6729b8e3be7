import Dispatch

#if canImport(Glibc)
  import Glibc
#endif

/// Delivers Ctrl-C (SIGINT) to a handler on a dispatch queue instead of killing the process,
/// so an interrupt never lands in the middle of a log write: the handler decides what to cancel
/// and the program leaves through its normal, orderly exit.
public final class InterruptSignal: @unchecked Sendable {
  // A dispatch source is thread-safe; it is only kept here to stay alive and to be cancelled.
  private let source: any DispatchSourceSignal

  /// Starts handling SIGINT with `handler` (called once per burst of signals).
  public init(handler: @escaping @Sendable () -> Void) {
    signal(SIGINT, SIG_IGN)
    source = DispatchSource.makeSignalSource(
      signal: SIGINT, queue: DispatchQueue(label: "susi.interrupt"))
    source.setEventHandler(handler: handler)
    source.resume()
  }

  /// Stops handling SIGINT (the default action, ending the process, applies again).
  public func cancel() {
    source.cancel()
    signal(SIGINT, SIG_DFL)
  }
}
