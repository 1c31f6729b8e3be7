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
    // Scanned as bytes: every delimiter is ASCII, and a request's URL is parsed per request.
    let utf8 = text.utf8
    guard !utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") })
    else { return nil }
    let restStart: String.Index
    if let end = Self.end(ofScheme: "http://", in: utf8) {
      isSecure = false
      restStart = end
    } else if let end = Self.end(ofScheme: "https://", in: utf8) {
      isSecure = true
      restStart = end
    } else {
      return nil
    }
    var authorityStart = restStart
    var authorityEnd = restStart
    while authorityEnd != utf8.endIndex {
      let byte = utf8[authorityEnd]
      if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
        break
      }
      utf8.formIndex(after: &authorityEnd)
      if byte == UInt8(ascii: "@") { authorityStart = authorityEnd }
    }
    let authority = text[authorityStart..<authorityEnd]
    let targetEnd = utf8[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
    var target = String(text[authorityEnd..<targetEnd])
    if target.isEmpty || target.utf8.first == UInt8(ascii: "?") { target = "/" + target }
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

  /// Where `scheme` (lower-case ASCII) ends when `utf8` starts with it in any case.
  private static func end(ofScheme scheme: StaticString, in utf8: String.UTF8View) -> String.Index?
  {
    var index = utf8.startIndex
    for expected in UnsafeBufferPointer(start: scheme.utf8Start, count: scheme.utf8CodeUnitCount) {
      guard index != utf8.endIndex else { return nil }
      var byte = utf8[index]
      if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
      guard byte == expected else { return nil }
      utf8.formIndex(after: &index)
    }
    return index
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
