import SusiHTTPClient
import SusiHTTPTypes

/// One SUSI API endpoint: where it is, how it is called, who may call it, and whether sending
/// it twice is harmless.
struct Endpoint: Sendable, Equatable {
  /// Who the server lets in.
  enum Access: Sendable, Equatable {
    /// Anyone; no token is sent.
    case anonymous
    /// Anyone; the token is sent when we hold one (the answer then belongs to the user).
    case tokenIfLoggedIn
    /// Only a logged-in user (minimum role USER): no token means no request, and a 401 means
    /// the server no longer accepts our token.
    case user
  }

  var path: String
  /// `GET` for reads; `POST` with a form body wherever a password or a write is involved, so
  /// no secret travels in a URL.
  var method: HTTPMethod
  var access: Access
  /// True when sending the request twice leaves the server as sending it once. Only such
  /// requests are sent again after an attempt whose outcome is unknown (sent, then timeout or
  /// reset, or a 5xx other than 503). `why` says what makes it so.
  var idempotent: Bool
  var why: String
}

/// The SUSI API as this client uses it: each domain's endpoints stand beside the requests that
/// call them, in the runner's `SusiRunner+Domain.swift` (web search, link previews and
/// images go to other hosts).
enum Endpoints {}

/// A call to one SUSI endpoint with its parameters, ready to become an HTTP request.
///
/// Every parameter is percent-encoded (RFC 3986 unreserved characters only), since group and
/// skill names hold spaces and commas. A `GET` carries the parameters in the query; a `POST`
/// carries them in an `application/x-www-form-urlencoded` body, which keeps passwords and
/// tokens out of URLs. A `GET` whose URL would be longer than `longestGetURL` goes as a `POST`.
struct APICall: Sendable {
  /// The longest URL sent with `GET`. Servers cap the request line (Jetty and the embedded
  /// server at 8 KiB), which a long chat query passes once percent-encoded (a CJK character
  /// takes 9 bytes); every SUSI endpoint reads a form body as it reads a query, so such a call
  /// is sent as a `POST` instead.
  static let longestGetURL = 4096

  var endpoint: Endpoint
  var parameters: [(String, String)]

  init(_ endpoint: Endpoint, _ parameters: [(String, String)]) {
    self.endpoint = endpoint
    self.parameters = parameters
  }

  /// The request to `base` (a server URL without a trailing slash).
  func request(base: String, limits: RequestLimits) -> TransportRequest {
    var headers: HTTPHeaders = [
      // Jetty sends an empty error page unless the client accepts text/html or */*.
      "Accept": "application/json, application/javascript;q=0.9, */*;q=0.5",
      "User-Agent": limits.userAgent,
    ]
    let form = URLEncodedForm.encode(parameters)
    let address = base.utf8.count + endpoint.path.utf8.count
    var method = endpoint.method
    if method == .get, address + 1 + form.utf8.count > Self.longestGetURL {
      method = "POST"
    }
    let hasQuery = method == .get && !form.isEmpty
    // Made in room reserved at once: concatenating took three allocations per request.
    var url = ""
    url.reserveCapacity(address + (hasQuery ? 1 + form.utf8.count : 0))
    url += base
    url += endpoint.path
    var body: [UInt8] = []
    if hasQuery {
      url += "?"
      url += form
    } else if method != .get {
      headers.add("Content-Type", "application/x-www-form-urlencoded")
      body = Array(form.utf8)
    }
    return TransportRequest(
      method: method, url: url, headers: headers, body: body,
      idleTimeout: limits.idleTimeout, totalTimeout: limits.totalTimeout,
      followsRedirects: false, maximumBodyBytes: limits.maximumBodyBytes)
  }
}

/// The limits every API request is sent with.
struct RequestLimits: Sendable {
  var idleTimeout: Double
  var totalTimeout: Double
  var maximumBodyBytes: Int
  var userAgent: String
}
