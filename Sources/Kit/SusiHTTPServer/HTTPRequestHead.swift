import SusiHTTPTypes

/// The HTTP version named in a request line.
struct HTTPVersion: Equatable, Sendable {
  var major: Int
  var minor: Int

  static let http10 = HTTPVersion(major: 1, minor: 0)
  static let http11 = HTTPVersion(major: 1, minor: 1)
}

/// How the body of a request is delimited (RFC 9112 §6).
enum HTTPBodyFraming: Equatable, Sendable {
  /// No body.
  case none
  /// Exactly this many bytes follow the head.
  case contentLength(Int)
  /// A chunked body follows the head.
  case chunked
}

/// A request line and header section that passed every framing check.
struct HTTPRequestHead: Equatable, Sendable {
  var method: HTTPMethod
  var target: String
  var version: HTTPVersion
  var headers: HTTPHeaders
  var bodyFraming: HTTPBodyFraming
  /// Whether the client allows the connection to stay open after the response.
  var keepAlive: Bool
  /// Whether the client waits for `100 Continue` before sending its body.
  var expectsContinue: Bool

  /// HEAD responses carry the headers of a GET but never a body.
  var isHead: Bool { method == .head }
}
