public import SusiAccess
public import SusiCore
public import SusiHTTPServer
public import SusiHTTPTypes
import SusiJSON

/// A refused request: its status and a `{"error":{"code","message"}}` body. Codes match the
/// JSON-lines frontend where the two overlap (`invalid_json`, `unknown_type`, …).
public struct WebhookError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The HTTP status.
  public var status: Int
  /// A stable, machine-readable word (`invalid_payload`).
  public var code: String
  /// What went wrong, for a person.
  public var message: String
  /// Extra headers (`Allow`, `WWW-Authenticate`, `Retry-After`).
  public var headers: HTTPHeaders

  /// An error answered with `status`, `code` and `message`.
  public init(_ status: Int, _ code: String, _ message: String, headers: HTTPHeaders = [:]) {
    self.status = status
    self.code = code
    self.message = message
    self.headers = headers
  }

  public var description: String { "\(status) \(code): \(message)" }

  /// The response that tells the caller.
  public var response: HTTPResponse {
    var w = JSONWriter(capacity: 64 + message.utf8.count)
    w.object { o in
      o.field("error") { w in
        w.object {
          $0.field("code", code)
          $0.field("message", message)
        }
      }
    }
    var all = headers
    all.set("Content-Type", "application/json")
    return HTTPResponse(status: status, headers: all, body: w.bytes)
  }

  public static func unauthorized(_ message: String) -> WebhookError {
    WebhookError(401, "unauthorized", message, headers: ["WWW-Authenticate": "Bearer"])
  }

  public static func forbidden(_ message: String) -> WebhookError {
    WebhookError(403, "forbidden", message)
  }

  public static func notFound(_ message: String) -> WebhookError {
    WebhookError(404, "not_found", message)
  }

  public static func badRequest(_ code: String, _ message: String) -> WebhookError {
    WebhookError(400, code, message)
  }
}

extension Caller {
  /// Refuses the request (403) unless the caller holds `privilege`.
  public func require(_ privilege: Privilege) throws(WebhookError) {
    guard holds(privilege) else {
      throw .forbidden("key \(keyID) lacks the \(privilege) privilege")
    }
  }

  /// Whether the caller manages keys or groups, and so may see who holds which key.
  public var seesAccess: Bool { holds(Privilege.keysManage) || holds(Privilege.groupsManage) }
}
