import Foundation
import SusiCrypto
import SusiHTTPServer
import SusiHTTPTypes

/// Works out who is calling, in the real server's order: the `login` cookie, then the
/// `access_token` parameter (never a header). A bad or expired token silently means anonymous.
enum IdentityResolver {
  static func resolve(
    _ request: HTTPRequest, parameters: RequestParameters, tokens: TokenBook, now: Date,
    trustedProxies: Set<String>
  ) -> Identity {
    for token in [loginCookie(request), parameters.nonEmpty("access_token")].compactMap({ $0 }) {
      if let email = tokens.email(forToken: token, now: now) {
        return Identity(kind: .email, name: email)
      }
    }
    return anonymous(request, trustedProxies: trustedProxies)
  }

  /// `<ip>_<hash>`: the caller (see `caller`) and the Java `String.hashCode` of User-Agent +
  /// Accept-Encoding + Accept-Language, in hex.
  static func anonymous(_ request: HTTPRequest, trustedProxies: Set<String>) -> Identity {
    let host = caller(request, trustedProxies: trustedProxies)
    let fingerprint =
      (request.headers["User-Agent"] ?? "") + (request.headers["Accept-Encoding"] ?? "")
      + (request.headers["Accept-Language"] ?? "")
    let hash = String(UInt32(bitPattern: javaHashCode(fingerprint)), radix: 16)
    return Identity(kind: .host, name: "\(host)_\(hash)")
  }

  /// The caller's address: the peer's, unless the peer is a trusted proxy, which names the
  /// client in `X-Real-IP` or else as the last `X-Forwarded-For` entry (the one it added).
  /// Anyone else could put any address there, so from other peers the headers are ignored.
  static func clientHost(_ request: HTTPRequest, trustedProxies: Set<String>) -> String {
    guard trustedProxies.contains(request.remoteAddress) else { return request.remoteAddress }
    if let real = request.headers["X-Real-IP"]?.trimmed, !real.isEmpty { return real }
    let forwarded = request.headers.values("X-Forwarded-For").joined(separator: ",")
    if let last = forwarded.split(separator: ",").last?.trimmed, !last.isEmpty { return last }
    return request.remoteAddress
  }

  /// Who calls, for anonymous identities and login lockouts: the client's address (see
  /// `clientHost`) and, for a process of this machine on loopback, its user (`127.0.0.1~u1000`).
  /// Every local user shares the loopback address, so the address alone would give each one
  /// the others' anonymous memory, and let one lock the others out.
  static func caller(_ request: HTTPRequest, trustedProxies: Set<String>) -> String {
    let host = clientHost(request, trustedProxies: trustedProxies)
    guard !trustedProxies.contains(request.remoteAddress), let user = request.loopbackUserID
    else { return host }
    return "\(host)~u\(user)"
  }

  /// Java's `String.hashCode()`: `s[0]*31^(n-1) + … + s[n-1]` over UTF-16 units, wrapping.
  static func javaHashCode(_ text: String) -> Int32 {
    var hash: Int32 = 0
    for unit in text.utf16 { hash = hash &* 31 &+ Int32(unit) }
    return hash
  }

  /// The token of the `login` cookie, or nil.
  static func loginCookie(_ request: HTTPRequest) -> String? {
    for header in request.headers.values("Cookie") {
      for part in header.split(separator: ";") {
        let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmed }
        if pair.count == 2, pair[0] == "login", !pair[1].isEmpty { return pair[1] }
      }
    }
    return nil
  }
}
