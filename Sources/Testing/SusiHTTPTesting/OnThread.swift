import Foundation

/// Runs blocking `work` on a thread of its own and waits for it without holding one of Swift's
/// few cooperative threads (other tests, and in-process servers, need them).
public func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
    Thread { continuation.resume(returning: work()) }.start()
  }
}

/// `onThread` for work that can throw: the error is rethrown to the caller.
public func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try work() }) }.start()
  }
}
