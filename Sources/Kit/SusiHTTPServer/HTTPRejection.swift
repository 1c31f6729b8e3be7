import SusiHTTPTypes

/// Why the server refused a request before it reached the handler: the status it answers and a
/// reason a person can act on. The server always closes the connection after a rejection.
struct HTTPRejection: Error, Equatable, Sendable, CustomStringConvertible {
  var status: Int
  var reason: String
  /// Sent as `Retry-After` when set (a busy server's 503).
  var retryAfterSeconds: Int? = nil

  var description: String { "\(status) \(HTTPStatus.reason(status)): \(reason)" }

  static func badRequest(_ reason: String) -> HTTPRejection {
    HTTPRejection(status: 400, reason: reason)
  }
}
