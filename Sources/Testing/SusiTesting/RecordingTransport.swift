public import SusiHTTPClient
import SusiHTTPTypes
import Synchronization

/// Records webhook deliveries and answers them as a test's `respond` says.
public final class RecordingTransport: HTTPTransport {
  private let respond:
    @Sendable (TransportRequest, Int) async throws(TransportError) -> TransportResponse
  private let state = Mutex<
    (requests: [TransportRequest], watchers: [(Int, CheckedContinuation<Void, Never>)])
  >(
    ([], []))

  /// `respond` gets each request and its number (1, 2, …).
  public init(
    _ respond:
      @escaping @Sendable (TransportRequest, Int) async throws(TransportError) -> TransportResponse =
      {
        _, _ in
        TransportResponse(status: 204)
      }
  ) {
    self.respond = respond
  }

  public var requests: [TransportRequest] { state.withLock { $0.requests } }

  /// The seq of each delivery attempt, in order.
  public var seqs: [Int] {
    requests.compactMap { $0.headers["webhook-id"].flatMap { Int($0.dropFirst(4)) } }
  }

  public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
    let (number, woken) = state.withLock { s in
      s.requests.append(request)
      let count = s.requests.count
      let ready = s.watchers.filter { $0.0 <= count }.map(\.1)
      s.watchers.removeAll { $0.0 <= count }
      return (count, ready)
    }
    for watcher in woken { watcher.resume() }
    return try await respond(request, number)
  }

  /// Returns once at least `count` requests were made.
  public func waitForRequests(_ count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { s in
        if s.requests.count >= count { return true }
        s.watchers.append((count, continuation))
        return false
      }
      if now { continuation.resume() }
    }
  }
}
