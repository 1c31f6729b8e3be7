import SusiCore
import SusiHTTPClient

/// Why an effect failed, in the terms `requestFailed` reports (`RequestError`).
///
/// Messages name the endpoint by path only: a URL's query string can hold a token, and no
/// message ever carries a password or a token.
struct RunnerFailure: Error, Equatable, Sendable {
  enum Kind: String, Sendable {
    /// No connection: refused, unknown host, reset.
    case network
    /// No reply in time.
    case timeout
    /// A non-2xx reply; `status` is set.
    case http
    /// A 401 (or an expired token) on an endpoint that needs a logged-in user.
    case unauthorized
    /// `accepted:false` on HTTP 200, with the server's message.
    case server
    /// Not JSON, the wrong shape, or HTML where JSON was expected.
    case badResponse
    /// A body over the size limit.
    case tooLarge
    /// The request was cancelled.
    case cancelled
    /// The request was cancelled because a newer one asks for the same thing.
    case superseded
    /// Local disk trouble (credentials, image cache).
    case io
    /// No token for a call that needs one.
    case notLoggedIn
    /// The server does not know the skill the request names.
    case notFound
  }

  var kind: Kind
  var status: Int?
  var message: String

  init(_ kind: Kind, status: Int? = nil, _ message: String) {
    self.kind = kind
    self.status = status
    self.message = message
  }

  /// The error as the result action carries it, scrubbed once more for safety.
  var requestError: RequestError {
    RequestError(kind: kind.rawValue, status: status, message: Redaction.scrub(message))
  }

  static let cancelled = RunnerFailure(.cancelled, "the request was cancelled")

  /// The failure of a request replaced by the same request of event `seq`.
  static func superseded(by seq: Int) -> RunnerFailure {
    RunnerFailure(.superseded, "replaced by the same request of event \(seq)")
  }

  /// The failure for a transport error on a request to `where` (a URL without its query).
  static func transport(_ error: TransportError, _ place: String) -> RunnerFailure {
    switch error {
    case .cannotConnect(let reason):
      RunnerFailure(
        .network, "cannot reach \(place): \(reason); check the address and the network")
    case .connectionLost(let reason):
      RunnerFailure(.network, "the connection to \(place) broke: \(reason)")
    case .timedOut:
      RunnerFailure(.timeout, "\(place) did not answer in time; try again later")
    case .tooLarge(let limit):
      RunnerFailure(.tooLarge, "the reply from \(place) is larger than \(limit) bytes")
    case .cancelled:
      .cancelled
    case .invalidURL(let reason):
      RunnerFailure(.network, "cannot request \(place): \(reason)")
    case .refused(let reason):
      RunnerFailure(.network, reason)
    case .failed(let reason):
      RunnerFailure(.network, "the request to \(place) failed: \(reason)")
    }
  }
}
