/// The server side of an `HTTPBodyWriter`: carries writes from the producer task to its
/// connection, and holds the producer back while the client is slow.
///
/// Its state is touched only on the connection's loop thread (writes hop there first).
final class ResponseStreamSink: @unchecked Sendable {
  private let loop: EventLoop
  private weak var connection: HTTPConnection?
  let chunked: Bool
  var task: Task<Void, Never>?
  private var ended = false
  private var waiting: CheckedContinuation<Void, any Error>?

  init(loop: EventLoop, connection: HTTPConnection, chunked: Bool) {
    self.loop = loop
    self.connection = connection
    self.chunked = chunked
  }

  /// Sends `bytes`; returns once they are queued and the queue is short enough.
  func write(_ bytes: [UInt8]) async throws {
    try await withCheckedThrowingContinuation {
      (continuation: CheckedContinuation<Void, any Error>) in
      loop.runOnLoop { self.deliver(bytes, continuation) }
    }
  }

  private func deliver(_ bytes: [UInt8], _ continuation: CheckedContinuation<Void, any Error>) {
    guard !ended, let connection, !connection.isClosed else {
      continuation.resume(throwing: HTTPStreamError.closed)
      return
    }
    connection.appendStreamBytes(bytes, chunked: chunked)
    if ended || connection.isClosed {
      continuation.resume(throwing: HTTPStreamError.closed)
    } else if connection.pendingOutput > loop.configuration.limits.maxBufferedResponseBytes {
      waiting = continuation
    } else {
      continuation.resume()
    }
  }

  /// The connection wrote some output; a waiting writer may go on once the queue is short.
  func outputDrained(pending: Int, limit: Int) {
    guard pending <= limit / 2 || pending == 0, let waiting else { return }
    self.waiting = nil
    waiting.resume()
  }

  /// The stream is over (finished, client gone, or shutdown): later writes fail and a
  /// producer still running is cancelled.
  func end() {
    guard !ended else { return }
    ended = true
    waiting?.resume(throwing: HTTPStreamError.closed)
    waiting = nil
    task?.cancel()
  }
}
