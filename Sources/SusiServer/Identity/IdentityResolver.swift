import Foundation
import SusiCrypto
import SusiHTTP

/// Works out who is calling, in the real server's order: the `login` cookie, then the
/// `access_token` parameter (never a header). A bad or expired token silently means anonymous.
enum IdentityResolver {
  static func resolve(
    _ request: HTTPRequest, parameters: RequestParameters, tokens: TokenBook, now: Date
  ) -> Identity {
    for token in [loginCookie(request), parameters.nonEmpty("access_token")].compactMap({ $0 }) {
      if let email = tokens.email(forToken: token, now: now) {
        return Identity(kind: .email, name: email)
      }
    }
    return anonymous(request)
  }

  /// `<ip>_<hash>`: the client address (from `X-Real-IP` when a proxy set it) and the Java
  /// `String.hashCode` of User-Agent + Accept-Encoding + Accept-Language, in hex.
  static func anonymous(_ request: HTTPRequest) -> Identity {
    let host = clientHost(request)
    let fingerprint =
      (request.headers["User-Agent"] ?? "") + (request.headers["Accept-Encoding"] ?? "")
      + (request.headers["Accept-Language"] ?? "")
    let hash = String(UInt32(bitPattern: javaHashCode(fingerprint)), radix: 16)
    return Identity(kind: .host, name: "\(host)_\(hash)")
  }

  /// The caller's address as the real server sees it: `X-Real-IP` wins over the peer.
  static func clientHost(_ request: HTTPRequest) -> String {
    if let real = request.headers["X-Real-IP"]?.trimmed, !real.isEmpty { return real }
    return request.remoteAddress
  }

  /// Java's `String.hashCode()`: `s[0]*31^(n-1) + … + s[n-1]` over UTF-16 units, wrapping.
  static func javaHashCode(_ text: String) -> Int32 {
    var hash: Int32 = 0
    for unit in text.utf16 { hash = hash &* 31 &+ Int32(unit) }
    return hash
  }

  private static func loginCookie(_ request: HTTPRequest) -> String? {
    for header in request.headers.values("Cookie") {
      for part in header.split(separator: ";") {
        let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmed }
        if pair.count == 2, pair[0] == "login", !pair[1].isEmpty { return pair[1] }
      }
    }
    return nil
  }
}
