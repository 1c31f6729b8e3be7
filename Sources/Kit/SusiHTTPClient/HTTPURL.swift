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
    // An ASCII URL (every URL the runner builds: its parameters are percent-encoded) is taken
    // apart on its bytes, with no index checks of String; any other goes the general way.
    var text = text
    guard text.withUTF8({ $0.allSatisfy { $0 < 0x80 } }) else {
      self.init(general: text)
      return
    }
    guard let parsed = text.withUTF8({ Self.parseASCII($0) }) else { return nil }
    self = parsed
  }

  private init(isSecure: Bool, host: String, port: Int, target: String) {
    self.isSecure = isSecure
    self.host = host
    self.port = port
    self.target = target
  }

  /// The URL in `bytes` (all ASCII), or nil when it is not an absolute http(s) URL.
  private static func parseASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPURL? {
    guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") })
    else { return nil }
    func hasScheme(_ scheme: StaticString) -> Bool {
      let count = scheme.utf8CodeUnitCount
      guard bytes.count >= count else { return false }
      for index in 0..<count {
        var byte = bytes[index]
        if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
        if byte != scheme.utf8Start[index] { return false }
      }
      return true
    }
    let isSecure: Bool
    let restStart: Int
    if hasScheme("http://") {
      (isSecure, restStart) = (false, 7)
    } else if hasScheme("https://") {
      (isSecure, restStart) = (true, 8)
    } else {
      return nil
    }
    var authorityStart = restStart
    var authorityEnd = restStart
    while authorityEnd < bytes.count {
      let byte = bytes[authorityEnd]
      if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
        break
      }
      authorityEnd += 1
      if byte == UInt8(ascii: "@") { authorityStart = authorityEnd }
    }
    var targetEnd = authorityEnd
    while targetEnd < bytes.count && bytes[targetEnd] != UInt8(ascii: "#") { targetEnd += 1 }
    let path = UnsafeBufferPointer(rebasing: bytes[authorityEnd..<targetEnd])
    let target =
      path.isEmpty || path[0] == UInt8(ascii: "?")
      ? "/" + String(decoding: path, as: UTF8.self) : String(decoding: path, as: UTF8.self)
    let authority = UnsafeBufferPointer(rebasing: bytes[authorityStart..<authorityEnd])
    var hostBytes = authority
    var portBytes = UnsafeBufferPointer(rebasing: authority[authority.count...])
    if authority.first == UInt8(ascii: "[") {
      guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
      hostBytes = UnsafeBufferPointer(rebasing: authority[1..<close])
      let after = authority[(close + 1)...]
      if !after.isEmpty {
        guard after.first == UInt8(ascii: ":") else { return nil }
        portBytes = UnsafeBufferPointer(rebasing: after.dropFirst())
      }
    } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
      hostBytes = UnsafeBufferPointer(rebasing: authority[..<colon])
      portBytes = UnsafeBufferPointer(rebasing: authority[(colon + 1)...])
    }
    guard !hostBytes.isEmpty else { return nil }
    let host = String(
      unsafeUninitializedCapacity: hostBytes.count,
      initializingUTF8With: { out in
        for (index, byte) in hostBytes.enumerated() {
          out[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
        }
        return hostBytes.count
      })
    let port: Int
    if portBytes.isEmpty {
      port = isSecure ? 443 : 80
    } else {
      guard let value = Int(String(decoding: portBytes, as: UTF8.self)), (1...65535).contains(value)
      else { return nil }
      port = value
    }
    return HTTPURL(isSecure: isSecure, host: host, port: port, target: target)
  }

  /// Parses `text` as a sequence of characters: the way for a URL with non-ASCII text in it,
  /// and what the ASCII way must agree with (the tests compare the two).
  init?(general text: String) {
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
