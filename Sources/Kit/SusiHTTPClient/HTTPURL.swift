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
    // Taken apart as bytes, never as Characters: every delimiter is ASCII, and a request's URL
    // is parsed per request.
    let bytes = Array(text.utf8)
    guard !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") })
    else { return nil }
    let restStart: Int
    if let end = Self.end(ofScheme: "http://", in: bytes) {
      isSecure = false
      restStart = end
    } else if let end = Self.end(ofScheme: "https://", in: bytes) {
      isSecure = true
      restStart = end
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
    let authority = bytes[authorityStart..<authorityEnd]
    let targetEnd = bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
    let target = String(decoding: bytes[authorityEnd..<targetEnd], as: UTF8.self)
    self.target = target.isEmpty || target.utf8.first == UInt8(ascii: "?") ? "/" + target : target
    var hostBytes = authority
    var portBytes: ArraySlice<UInt8> = []
    if authority.first == UInt8(ascii: "[") {
      guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
      hostBytes = authority[(authority.startIndex + 1)..<close]
      let after = authority[(close + 1)...]
      if !after.isEmpty {
        guard after.first == UInt8(ascii: ":") else { return nil }
        portBytes = after.dropFirst()
      }
    } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
      hostBytes = authority[..<colon]
      portBytes = authority[(colon + 1)...]
    }
    guard !hostBytes.isEmpty else { return nil }
    host = Self.lowercased(hostBytes)
    if portBytes.isEmpty {
      port = isSecure ? 443 : 80
    } else {
      guard portBytes.allSatisfy({ $0 < 0x80 }),
        let value = Int(String(decoding: portBytes, as: UTF8.self)), (1...65535).contains(value)
      else { return nil }
      port = value
    }
  }

  /// Where `scheme` (lower-case ASCII) ends when `bytes` start with it in any case.
  private static func end(ofScheme scheme: StaticString, in bytes: [UInt8]) -> Int? {
    let expected = UnsafeBufferPointer(start: scheme.utf8Start, count: scheme.utf8CodeUnitCount)
    guard bytes.count >= expected.count else { return nil }
    for (index, wanted) in expected.enumerated() where Self.lowercased(bytes[index]) != wanted {
      return nil
    }
    return expected.count
  }

  /// A host in lower case: byte by byte when it is ASCII (as it almost always is).
  private static func lowercased(_ host: ArraySlice<UInt8>) -> String {
    guard host.allSatisfy({ $0 < 0x80 }) else {
      return String(decoding: host, as: UTF8.self).lowercased()
    }
    // Written into the string's own storage: decoding a lazy map would take the runtime's
    // generic path (a dynamic cast and a copy) for every request.
    return String(unsafeUninitializedCapacity: host.count) { buffer in
      for (offset, byte) in host.enumerated() { buffer[offset] = Self.lowercased(byte) }
      return host.count
    }
  }

  private static func lowercased(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
  }

  /// `scheme://host:port`, the key of the connection pool and of the allowed origins.
  var origin: String { "\(isSecure ? "https" : "http")://\(hostForURL):\(port)" }

  /// The host as a URL spells it: IPv6 literals in brackets.
  var hostForURL: String { host.contains(":") ? "[\(host)]" : host }

  /// The `Host` header: the port only when it is not the default.
  var hostHeader: String {
    var bytes: [UInt8] = []
    appendHostHeader(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the `Host` header's value (built per request: no string is made for it).
  func appendHostHeader(to bytes: inout [UInt8]) {
    var host = host
    let isLiteral = host.utf8.contains(UInt8(ascii: ":"))
    if isLiteral { bytes.append(UInt8(ascii: "[")) }
    host.withUTF8 { bytes.append(contentsOf: $0) }
    if isLiteral { bytes.append(UInt8(ascii: "]")) }
    guard port != (isSecure ? 443 : 80) else { return }
    bytes.append(UInt8(ascii: ":"))
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)
    var count = 0
    var rest = port
    withUnsafeMutableBytes(of: &digits) { buffer in
      // A port has at most 5 digits (1...65535, checked when the URL was parsed).
      repeat {
        buffer[4 - count] = UInt8(truncatingIfNeeded: rest % 10) + UInt8(ascii: "0")
        rest /= 10
        count += 1
      } while rest > 0 && count < 5
      bytes.append(contentsOf: buffer[(5 - count)...])
    }
  }

  /// The URL without query, for messages.
  var display: String {
    let path = target.prefix { $0 != "?" }
    return "\(isSecure ? "https" : "http")://\(hostHeader)\(path)"
  }
}
