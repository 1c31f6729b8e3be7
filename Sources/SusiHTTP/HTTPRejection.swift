/// Why the server refused a request before it reached the handler: the status it answers and a
/// reason a person can act on. The server always closes the connection after a rejection.
struct HTTPRejection: Error, Equatable, Sendable, CustomStringConvertible {
  var status: Int
  var reason: String

  var description: String { "\(status) \(HTTPStatus.reason(status)): \(reason)" }

  static func badRequest(_ reason: String) -> HTTPRejection {
    HTTPRejection(status: 400, reason: reason)
  }
}
