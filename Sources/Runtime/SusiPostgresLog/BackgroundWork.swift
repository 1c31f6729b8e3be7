import Dispatch
import Synchronization

/// Work done on a thread of its own while the caller goes on (a start decodes the snapshot while
/// it waits for the database, and reads the next rows while it folds the last ones); `value()`
/// waits for it. The thread is a serial queue's, never one of the concurrency pool's, so a
/// caller that blocks in `value()` cannot starve the work it waits for.
final class BackgroundWork<Value: Sendable>: Sendable {
  private let outcome = Mutex<Value?>(nil)
  private let done = DispatchSemaphore(value: 0)

  init(_ work: @escaping @Sendable () -> Value) {
    DispatchQueue(label: "susi.postgres.background").async { [self] in
      let value = work()
      outcome.withLock { $0 = value }
      done.signal()
    }
  }

  /// Waits until the work is done and returns what it gave.
  func value() -> Value {
    done.wait()
    done.signal()
    guard let value = outcome.withLock({ $0 }) else {
      preconditionFailure("the background work signalled without a value")
    }
    return value
  }
}

/// Hands a value that is not `Sendable` (a connection) to one background job, which alone uses
/// it until the caller has waited for the job's `value()`.
struct HandedOver<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
