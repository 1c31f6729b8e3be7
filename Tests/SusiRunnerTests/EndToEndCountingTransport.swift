import SusiHTTPClient
import SusiRunner
import Synchronization

/// The real network (`SocketTransport`) with a tally of every request that went out, so
/// end-to-end tests can say how many requests an intent cost.
final class EndToEndCountingTransport: HTTPTransport {
  private let network: SocketTransport
  private let sent = Mutex<[TransportRequest]>([])

  init(network: SocketTransport = SocketTransport()) {
    self.network = network
  }

  func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
    sent.withLock { $0.append(request) }
    return try await network.send(request)
  }

  /// Every request sent so far, in order.
  var requests: [TransportRequest] { sent.withLock { $0 } }

  /// How many requests went out so far.
  var count: Int { sent.withLock { $0.count } }

  /// The requests sent since the first `since` ones.
  func requests(since: Int) -> [TransportRequest] { Array(requests.dropFirst(since)) }
}
