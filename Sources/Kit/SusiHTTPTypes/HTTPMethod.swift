/// An HTTP request method (RFC 9110 §9): the registered ones as cases, anything else kept as
/// sent in `other`. Written as a string literal (`"GET"`) it becomes the matching case.
public enum HTTPMethod: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
  case get
  case head
  case post
  case put
  case delete
  case patch
  case options
  case connect
  case trace
  /// A method with no case of its own (`PROPFIND`), as sent.
  case other(String)

  /// The method named `text` (methods are case-sensitive: `get` is not `GET`).
  public init(_ text: String) {
    switch text {
    case "GET": self = .get
    case "HEAD": self = .head
    case "POST": self = .post
    case "PUT": self = .put
    case "DELETE": self = .delete
    case "PATCH": self = .patch
    case "OPTIONS": self = .options
    case "CONNECT": self = .connect
    case "TRACE": self = .trace
    default: self = .other(text)
    }
  }

  public init(stringLiteral value: String) { self.init(value) }

  /// The method as sent on the wire.
  public var text: String {
    switch self {
    case .get: "GET"
    case .head: "HEAD"
    case .post: "POST"
    case .put: "PUT"
    case .delete: "DELETE"
    case .patch: "PATCH"
    case .options: "OPTIONS"
    case .connect: "CONNECT"
    case .trace: "TRACE"
    case .other(let text): text
    }
  }

  public var description: String { text }

  /// Whether the method may be sent: a non-empty token (RFC 9110 §5.6.2).
  public var isValidToken: Bool {
    // Only a method spelled out may be anything else.
    guard case .other(let text) = self else { return true }
    let bytes = text.utf8
    return !bytes.isEmpty && bytes.allSatisfy(HTTPSyntax.isTokenByte)
  }

  /// Whether a request with this method carries a body by custom, so an empty one is still
  /// announced with `Content-Length: 0`.
  public var expectsBody: Bool { self == .post || self == .put || self == .patch }
}
