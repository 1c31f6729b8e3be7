/// Checks on what people and programs type, shared by the reducer and the frontends.
public enum Validation {
  /// The normalised form of a server URL (`http(s)://host[:port][/path]`, no trailing slash,
  /// no credentials, query or fragment), `embedded`, or nil when it is not acceptable.
  public static func serverURL(_ text: String) -> String? {
    let text = text.trimmed
    if text == State.embeddedServer { return text }
    guard let parts = WebURL(text), parts.query == nil, parts.fragment == nil else { return nil }
    var url = parts.scheme + "://" + parts.authority
    var path = parts.path
    while path.hasSuffix("/") { path.removeLast() }
    url += path
    return url
  }

  /// True for an absolute `http` or `https` URL with a host.
  public static func webURL(_ text: String) -> Bool { WebURL(text) != nil }

  /// Why `email` is not an email address, or nil.
  public static func emailProblem(_ email: String) -> String? {
    let parts = email.split(separator: "@", omittingEmptySubsequences: false)
    guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
      !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
      !email.unicodeScalars.contains(where: { $0.value <= 0x20 || $0 == "," || $0 == ";" })
    else { return "'\(email)' is not an email address" }
    return nil
  }
}

/// The parts of an absolute http(s) URL, checked strictly enough that it can be sent as is.
struct WebURL {
  var scheme: String
  var authority: String
  var path: String
  var query: String?
  var fragment: String?

  init?(_ text: String) {
    var text = text
    guard let parts = text.withUTF8({ Self.split($0) }) else { return nil }
    self = parts
  }

  /// Splits and checks the URL's bytes; the delimiters are ASCII, so every cut falls on a
  /// character boundary.
  private static func split(_ b: UnsafeBufferPointer<UInt8>) -> WebURL? {
    for byte in b where byte <= 0x20 || byte == 0x7f { return nil }
    func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5a ? c | 0x20 : c }
    func hasPrefix(_ prefix: StaticString) -> Bool {
      guard b.count >= prefix.utf8CodeUnitCount else { return false }
      for i in 0..<prefix.utf8CodeUnitCount where lower(b[i]) != prefix.utf8Start[i] {
        return false
      }
      return true
    }
    func text(_ range: Range<Int>) -> String {
      String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self)
    }
    let scheme: String
    let start: Int
    if hasPrefix("http://") {
      scheme = "http"
      start = 7
    } else if hasPrefix("https://") {
      scheme = "https"
      start = 8
    } else {
      return nil
    }
    var authorityEnd = start
    while authorityEnd < b.count, b[authorityEnd] != 0x2f, b[authorityEnd] != 0x3f,
      b[authorityEnd] != 0x23
    {
      authorityEnd += 1
    }
    // Credentials in a URL would end up in the log; refuse them.
    guard authorityEnd > start, !b[start..<authorityEnd].contains(0x40) else { return nil }
    var host = start..<authorityEnd
    if b[start] == UInt8(ascii: "[") {
      guard let close = b[start..<authorityEnd].firstIndex(of: UInt8(ascii: "]")) else {
        return nil
      }
      host = start..<(close + 1)
      if close + 1 < authorityEnd {
        guard b[close + 1] == UInt8(ascii: ":"), validPort(b, (close + 2)..<authorityEnd) else {
          return nil
        }
      }
    } else if let colon = b[start..<authorityEnd].lastIndex(of: UInt8(ascii: ":")) {
      host = start..<colon
      guard validPort(b, (colon + 1)..<authorityEnd) else { return nil }
    }
    // Brackets and colons belong only to an IPv6 literal (`[::1]`), never to a name.
    guard !host.isEmpty else { return nil }
    if b[host.lowerBound] == UInt8(ascii: "[") {
      let inner = (host.lowerBound + 1)..<(host.upperBound - 1)
      guard !inner.isEmpty else { return nil }
      for c in b[inner] {
        let hex = (c >= 0x30 && c <= 0x39) || (lower(c) >= 0x61 && lower(c) <= 0x66)
        guard hex || c == UInt8(ascii: ":") || c == UInt8(ascii: ".") else { return nil }
      }
    } else if b[host].allSatisfy({ $0 < 0x80 }) {
      for c in b[host] {
        let letter = lower(c) >= 0x61 && lower(c) <= 0x7a
        let digit = c >= 0x30 && c <= 0x39
        guard
          letter || digit || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
            || c == UInt8(ascii: "_")
        else {
          return nil
        }
      }
    } else {
      // International names: letters of any script.
      guard
        text(host).unicodeScalars.allSatisfy({
          $0.properties.isAlphabetic || ("0"..."9").contains($0)
            || "-._".unicodeScalars.contains($0)
        })
      else { return nil }
    }
    var remainderEnd = b.count
    var fragment: String?
    var query: String?
    if let hash = b[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) {
      fragment = text((hash + 1)..<b.count)
      remainderEnd = hash
    }
    var pathEnd = remainderEnd
    if let mark = b[authorityEnd..<remainderEnd].firstIndex(of: UInt8(ascii: "?")) {
      query = text((mark + 1)..<remainderEnd)
      pathEnd = mark
    }
    let authority =
      b[start..<authorityEnd].allSatisfy({ $0 < 0x80 })
      ? String(decoding: b[start..<authorityEnd].map(lower), as: UTF8.self)
      : text(start..<authorityEnd).lowercased()
    return WebURL(
      scheme: scheme, authority: authority, path: text(authorityEnd..<pathEnd), query: query,
      fragment: fragment)
  }

  private init(scheme: String, authority: String, path: String, query: String?, fragment: String?) {
    self.scheme = scheme
    self.authority = authority
    self.path = path
    self.query = query
    self.fragment = fragment
  }

  private static func validPort(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
    guard !range.isEmpty, range.count <= 5 else { return false }
    var port = 0
    for c in b[range] {
      guard c >= 0x30 && c <= 0x39 else { return false }
      port = port * 10 + Int(c - 0x30)
    }
    return (1...65535).contains(port)
  }
}

extension String {
  /// The string without leading and trailing whitespace (spaces, tabs, newlines).
  public var trimmed: String {
    // Most text starts and ends with a visible ASCII character: nothing to trim.
    if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x7f, last > 0x20,
      last < 0x7f
    {
      return self
    }
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
    return String(scalars[first...last])
  }
}
