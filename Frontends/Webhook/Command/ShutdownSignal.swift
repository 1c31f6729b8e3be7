import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Waits for SIGINT or SIGTERM, so `susi serve` can stop cleanly instead of being killed.
enum ShutdownSignal {
  /// Returns the signal that arrived first. From the first call on, these signals no longer
  /// end the process by themselves.
  static func wait() async -> Int32 {
    let signals = [SIGINT, SIGTERM]
    for number in signals { signal(number, SIG_IGN) }
    let box = Sources()
    return await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
      let fired = Mutex(false)
      for number in signals {
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
          let first = fired.withLock { done in
            defer { done = true }
            return !done
          }
          guard first else { return }
          box.cancelAll()
          continuation.resume(returning: number)
        }
        box.add(source)
        source.resume()
      }
    }
  }

  /// Keeps the signal sources alive until one fires.
  private final class Sources: @unchecked Sendable {
    private let queue = DispatchQueue(label: "susi.serve.signals")
    private var sources: [any DispatchSourceSignal] = []
    func add(_ source: any DispatchSourceSignal) { queue.sync { sources.append(source) } }
    func cancelAll() {
      for source in queue.sync(execute: { sources }) { source.cancel() }
    }
  }
}
