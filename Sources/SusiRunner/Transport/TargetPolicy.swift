#if canImport(Glibc)
  import Glibc
#endif

/// Which addresses a request to a URL that came from outside (a link to preview, an image, a
/// webhook subscriber) may reach: the guard against server-side request forgery.
///
/// By default loopback, private, shared (CGNAT), link-local (cloud metadata at
/// 169.254.169.254), unique-local, multicast, unspecified and reserved addresses are refused.
/// Every address the host name resolves to is checked, after resolution, so encoded spellings
/// (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`) and names that point inside are caught alike;
/// the transport then connects to an address that was checked, never resolving the name again.
///
/// ```swift
/// let policy = TargetPolicy(allowedOrigins: ["http://127.0.0.1:4000"])
/// let addresses = try policy.check("http://example.com/hook")  // throws TransportError.refused
/// ```
public struct TargetPolicy: Sendable, Equatable {
  /// Lets every address through (`--allow-private-targets`, for local testing).
  public var allowsPrivateTargets: Bool
  /// Origins reached whatever their address (`http://127.0.0.1:4000`, as `origin(of:)` spells
  /// them): the configured SUSI server's own, so its pages still preview.
  public private(set) var allowedOrigins: Set<String>

  /// A policy that refuses internal addresses except on `allowedOrigins`.
  public init(allowsPrivateTargets: Bool = false, allowedOrigins: [String] = []) {
    self.allowsPrivateTargets = allowsPrivateTargets
    self.allowedOrigins = Set(allowedOrigins.compactMap(Self.origin(of:)))
  }

  /// Adds the origin of `url` to the allowed ones (ignored when `url` is not http(s)).
  public mutating func allow(originOf url: String) {
    if let origin = Self.origin(of: url) { allowedOrigins.insert(origin) }
  }

  /// `scheme://host:port` of an http(s) URL, lower-cased with the default port spelled out, or
  /// nil.
  public static func origin(of url: String) -> String? {
    guard let parsed = HTTPURL(url) else { return nil }
    return parsed.origin
  }

  /// Whether `url` may go anywhere without an address check (its origin is allowed, or the
  /// policy allows private targets).
  public func isExempt(_ url: String) -> Bool {
    allowsPrivateTargets || Self.origin(of: url).map(allowedOrigins.contains) == true
  }

  /// Resolves `url`'s host and checks every address: the addresses to connect to, or
  /// `.refused` naming the URL and the kind of address, `.cannotConnect` for an unknown host,
  /// `.invalidURL` for a URL that is not http(s).
  public func check(_ url: String) throws(TransportError) -> [SocketAddress] {
    guard let parsed = HTTPURL(url) else { throw .invalidURL("not an absolute http(s) URL") }
    let addresses = try SocketAddress.resolve(host: parsed.host, port: parsed.port)
    if isExempt(url) { return addresses }
    for address in addresses {
      if let kind = address.internalKind {
        throw .refused(
          "\(parsed.display) points at a \(kind) address (\(address.text)), which is refused;"
            + " --allow-private-targets (SUSI_ALLOW_PRIVATE_TARGETS=1) allows it for local testing"
        )
      }
    }
    return addresses
  }
}

/// One IPv4 or IPv6 address with a port, as `connect` takes it.
public struct SocketAddress: Sendable, Equatable {
  /// 4 bytes (IPv4) or 16 bytes (IPv6), network order.
  public let bytes: [UInt8]
  public let port: UInt16

  /// The address as text (`127.0.0.1`, `::1`).
  public var text: String {
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let family = bytes.count == 4 ? AF_INET : AF_INET6
    _ = bytes.withUnsafeBytes {
      inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count))
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Every address `host` resolves to (a name, or a literal in any spelling the resolver
  /// accepts), for TCP.
  static func resolve(host: String, port: Int) throws(TransportError) -> [SocketAddress] {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_family = AF_UNSPEC
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &list)
    guard status == 0, let first = list else {
      throw .cannotConnect("the host name is unknown")
    }
    defer { freeaddrinfo(first) }
    var addresses: [SocketAddress] = []
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let current = entry {
      if let address = SocketAddress(current.pointee.ai_addr), !addresses.contains(address) {
        addresses.append(address)
      }
      entry = current.pointee.ai_next
    }
    guard !addresses.isEmpty else { throw .cannotConnect("the host name has no address") }
    return addresses
  }

  init?(_ raw: UnsafeMutablePointer<sockaddr>?) {
    guard let raw else { return nil }
    switch Int32(raw.pointee.sa_family) {
    case AF_INET:
      let v4 = UnsafeRawPointer(raw).load(as: sockaddr_in.self)
      bytes = withUnsafeBytes(of: v4.sin_addr) { Array($0) }
      port = UInt16(bigEndian: v4.sin_port)
    case AF_INET6:
      let v6 = UnsafeRawPointer(raw).load(as: sockaddr_in6.self)
      bytes = withUnsafeBytes(of: v6.sin6_addr) { Array($0) }
      port = UInt16(bigEndian: v6.sin6_port)
    default:
      return nil
    }
  }

  init(bytes: [UInt8], port: UInt16) {
    self.bytes = bytes
    self.port = port
  }

  /// What kind of internal address this is (`loopback`, `private`, …), or nil for a public one.
  public var internalKind: String? {
    if bytes.count == 4 { return Self.kindOfIPv4(bytes) }
    let b = bytes
    if b.allSatisfy({ $0 == 0 }) { return "unspecified" }
    if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return "loopback" }
    // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d)
    // carry an IPv4 address that decides.
    if b[0..<10].allSatisfy({ $0 == 0 })
      && (b[10..<12].allSatisfy { $0 == 0xFF }
        || b[10..<12].allSatisfy { $0 == 0 })
    {
      return Self.kindOfIPv4(Array(b[12..<16]))
    }
    if b[0..<12] == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
      return Self.kindOfIPv4(Array(b[12..<16]))
    }
    // 6to4 (2002:aabb:ccdd::) embeds an IPv4 address too.
    if b[0] == 0x20 && b[1] == 0x02, let kind = Self.kindOfIPv4(Array(b[2..<6])) { return kind }
    if b[0] & 0xFE == 0xFC { return "unique-local" }
    if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return "link-local" }
    if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return "site-local" }
    if b[0] == 0xFF { return "multicast" }
    return nil
  }

  private static func kindOfIPv4(_ b: [UInt8]) -> String? {
    switch (b[0], b[1]) {
    case (0, _): return "unspecified"
    case (127, _): return "loopback"
    case (10, _), (172, 16...31), (192, 168): return "private"
    case (100, 64...127): return "shared (carrier-grade NAT)"
    case (169, 254): return "link-local (cloud metadata)"
    case (192, 0) where b[2] == 0: return "reserved"
    case (198, 18...19): return "reserved"
    case (224...239, _): return "multicast"
    case (240...255, _): return "reserved"
    default: return nil
    }
  }
}

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
