#if canImport(Glibc)
  import Glibc
#endif

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
