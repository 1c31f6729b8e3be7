/// An absolute `http` or `https` URL taken apart for sending.
struct HTTPURL: Equatable {
  var isSecure: Bool
  /// The host without brackets, lower-cased (`example.com`, `::1`).
  var host: String
  var port: Int
  /// Path and query (`/a?b=c`), never empty.
  var target: String

  /// Parses `text`; nil when it is not an absolute http(s) URL or holds spaces or controls.
  init?(_ text: String) {
    guard !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") })
    else { return nil }
    let lower = text.lowercased()
    let rest: Substring
    if lower.hasPrefix("http://") {
      isSecure = false
      rest = text.dropFirst(7)
    } else if lower.hasPrefix("https://") {
      isSecure = true
      rest = text.dropFirst(8)
    } else {
      return nil
    }
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
    var authority = rest[..<authorityEnd]
    if let at = authority.lastIndex(of: "@") {
      authority = authority[authority.index(after: at)...]
    }
    var target = String(rest[authorityEnd...])
    if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
    if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
    self.target = target
    var portText: Substring = ""
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      host = String(authority[authority.index(after: authority.startIndex)..<close])
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { return nil }
        portText = after.dropFirst()
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = String(authority[..<colon])
      portText = authority[authority.index(after: colon)...]
    } else {
      host = String(authority)
    }
    host = host.lowercased()
    guard !host.isEmpty else { return nil }
    if portText.isEmpty {
      port = isSecure ? 443 : 80
    } else {
      guard portText.allSatisfy(\.isASCII), let value = Int(portText), (1...65535).contains(value)
      else { return nil }
      port = value
    }
  }

  /// `scheme://host:port`, the key of the connection pool and of the allowed origins.
  var origin: String { "\(isSecure ? "https" : "http")://\(hostForURL):\(port)" }

  /// The host as a URL spells it: IPv6 literals in brackets.
  var hostForURL: String { host.contains(":") ? "[\(host)]" : host }

  /// The `Host` header: the port only when it is not the default.
  var hostHeader: String { port == (isSecure ? 443 : 80) ? hostForURL : "\(hostForURL):\(port)" }

  /// The URL without query, for messages.
  var display: String {
    let path = target.prefix { $0 != "?" }
    return "\(isSecure ? "https" : "http")://\(hostHeader)\(path)"
  }
}
