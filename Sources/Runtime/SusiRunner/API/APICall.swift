import SusiHTTPClient
import SusiHTTPTypes

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
    var url = base + endpoint.path
    var method = endpoint.method
    if method == .get, url.utf8.count + 1 + form.utf8.count > Self.longestGetURL {
      method = "POST"
    }
    var body: [UInt8] = []
    if method == .get {
      if !form.isEmpty { url += "?" + form }
    } else {
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
