import Glibc

/// Why the server could not start.
public struct HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What failed.
  public enum Code: String, Sendable {
    /// The configured host is not an IPv4 or IPv6 address.
    case invalidAddress
    /// A socket call failed (bind, listen, epoll, …); `message` names the call and the reason.
    case socketFailed
    /// `start()` was called on a server that was already started.
    case alreadyStarted
  }

  /// What failed, for code that reacts to it.
  public var code: Code
  /// What failed, for a person.
  public var message: String

  /// Creates an error.
  public init(code: Code, message: String) {
    self.code = code
    self.message = message
  }

  /// The message.
  public var description: String { message }

  /// A failed system call, with the reason `errno` gives.
  static func systemCall(_ call: String, _ detail: String = "") -> HTTPServerError {
    let reason = String(cString: strerror(errno))
    let subject = detail.isEmpty ? call : "\(call) \(detail)"
    return HTTPServerError(
      code: .socketFailed, message: "\(subject) failed: \(reason) (errno \(errno))")
  }
}
