import Synchronization

/// How many event streams each key holds open, so that one key cannot take every connection.
final class StreamSlots: Sendable {
  private let counts = Mutex<[String: Int]>([:])

  /// A slot for `key` when it holds fewer than `limit`; nil when it holds them all. The slot is
  /// given back when the last reference to it goes, so a stream whose response is dropped
  /// before it starts gives its slot back too.
  func open(_ key: String, limit: Int) -> StreamSlot? {
    let taken = counts.withLock { counts in
      let count = counts[key, default: 0]
      guard count < limit else { return false }
      counts[key] = count + 1
      return true
    }
    guard taken else { return nil }
    return StreamSlot {
      self.counts.withLock { counts in
        let count = counts[key, default: 0] - 1
        counts[key] = count > 0 ? count : nil
      }
    }
  }
}

/// One open stream's place among its key's streams.
final class StreamSlot: Sendable {
  private let release: @Sendable () -> Void

  fileprivate init(release: @escaping @Sendable () -> Void) { self.release = release }

  deinit { release() }
}
