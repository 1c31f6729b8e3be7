import SusiCrypto
import SusiHTTPServer
import SusiHTTPTypes
import SusiServe

/// The headers and checks that keep other sites away from the browser frontend: a strict
/// content policy on every answer, the session header, and the `Origin` of state changes.
enum WebSecurity {
  /// Only the page's own files run; it talks to its own origin only, and nothing frames it.
  static let contentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    + "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

  /// The request header that carries a session id. The page keeps the id in its own tab's
  /// storage and sends it with each request; it is never a cookie, because a browser sends a
  /// host's cookies to every port on it, so any other program listening on loopback would get
  /// it from a link. Another site's page cannot send this header: the CORS preflight it needs
  /// is never granted.
  static let sessionHeader = "X-Susi-Session"

  /// The session id the request carries, if any.
  static func sessionID(_ headers: HTTPHeaders) -> String? {
    guard let value = headers[sessionHeader]?.trimmingSpaces(),
      !value.isEmpty
    else { return nil }
    return value
  }

  /// Adds the headers every answer carries. Answers are not cached unless they say so
  /// themselves (images, `private`); no CORS header ever leaves.
  static func harden(_ response: inout HTTPResponse) {
    response.headers.set("Content-Security-Policy", contentSecurityPolicy)
    response.headers.set("X-Content-Type-Options", "nosniff")
    response.headers.set("Referrer-Policy", "no-referrer")
    if !(response.headers["Cache-Control"]?.hasPrefix("private") ?? false) {
      response.headers.set("Cache-Control", "no-store")
    }
    for field in response.headers where field.name.lowercased().hasPrefix("access-control-") {
      response.headers.remove(field.name)
    }
  }

  /// Methods that change something: they also need a matching `Origin`.
  static func changesState(_ method: HTTPMethod) -> Bool {
    ![.get, .head, .options].contains(method)
  }

  /// 32 random bytes, base64url without padding: start tokens and session ids.
  static func randomSecret() -> String { ByteEncoding.base64URL(Digest.randomBytes(32)) }

  static func unauthorized(_ message: String) -> HTTPResponse {
    WebhookError(401, "unauthorized", message).response
  }

  /// A request for another host name (DNS rebinding), answered before anything else.
  static let badHost = WebhookError(
    421, "bad_host", "this server answers only for 127.0.0.1, localhost and [::1] on its port"
  ).response

  static let badOrigin = WebhookError(
    403, "bad_origin", "a change must come from this server's own page (the Origin did not match)"
  ).response
}
