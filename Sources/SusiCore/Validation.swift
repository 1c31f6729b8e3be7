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
    guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f }) else { return nil }
    let lower = text.lowercased()
    let rest: Substring
    if lower.hasPrefix("http://") {
      scheme = "http"
      rest = text.dropFirst(7)
    } else if lower.hasPrefix("https://") {
      scheme = "https"
      rest = text.dropFirst(8)
    } else {
      return nil
    }
    let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    // Credentials in a URL would end up in the log; refuse them.
    guard !authority.isEmpty, !authority.contains("@") else { return nil }
    var host = authority
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      host = authority[...close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":"), Self.validPort(after.dropFirst()) else { return nil }
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = authority[..<colon]
      guard Self.validPort(authority[authority.index(after: colon)...]) else { return nil }
    }
    // Brackets and colons belong only to an IPv6 literal (`[::1]`), never to a name.
    let hostIsValid: Bool
    if host.hasPrefix("[") {
      let inner = host.dropFirst().dropLast()
      hostIsValid =
        !inner.isEmpty
        && inner.unicodeScalars.allSatisfy {
          $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "."
        }
    } else {
      hostIsValid =
        !host.isEmpty
        && host.unicodeScalars.allSatisfy {
          $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-._".unicodeScalars.contains($0)
        }
    }
    guard hostIsValid else { return nil }
    self.authority = String(authority).lowercased()
    var remainder = rest[authorityEnd...]
    if let hash = remainder.firstIndex(of: "#") {
      fragment = String(remainder[remainder.index(after: hash)...])
      remainder = remainder[..<hash]
    }
    if let mark = remainder.firstIndex(of: "?") {
      query = String(remainder[remainder.index(after: mark)...])
      remainder = remainder[..<mark]
    }
    path = String(remainder)
  }

  private static func validPort(_ text: Substring) -> Bool {
    guard !text.isEmpty, text.count <= 5, text.allSatisfy({ ("0"..."9").contains($0) }), let port = Int(text) else {
      return false
    }
    return (1...65535).contains(port)
  }
}

extension String {
  /// The string without leading and trailing whitespace (spaces, tabs, newlines).
  public var trimmed: String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
    return String(scalars[first...last])
  }
}
