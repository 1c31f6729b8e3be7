import Glibc

/// Which local user is at the other end of a loopback TCP connection.
///
/// Every local user connects from the same address (127.0.0.1), so the address alone cannot
/// tell them apart. The kernel knows who owns the client's socket: `/proc/net/tcp` (and `tcp6`)
/// lists each socket with its local and remote address and its owner's uid. The client's socket
/// is the one whose local end is the peer's address and whose remote end is ours.
enum LoopbackPeer {
  /// The uid owning the other end of `fd`, when that end is on this machine's loopback; nil
  /// for remote peers or when the kernel's table does not say.
  static func userID(of fd: Int32) -> UInt32? {
    guard let peer = endpoint(fd, peer: true), let local = endpoint(fd, peer: false),
      peer.isLoopback
    else { return nil }
    let table = peer.isIPv6 ? "/proc/net/tcp6" : "/proc/net/tcp"
    guard let text = readFile(table) else { return nil }
    let wantedLocal = peer.kernelText
    let wantedRemote = local.kernelText
    for line in text.split(separator: "\n").dropFirst() {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count > 7, fields[1] == wantedLocal, fields[2] == wantedRemote else {
        continue
      }
      return UInt32(fields[7])
    }
    return nil
  }

  /// One end of a TCP connection, as the kernel's tables spell it.
  struct Endpoint {
    /// The address bytes in network order (4 or 16).
    var address: [UInt8]
    var port: UInt16

    var isIPv6: Bool { address.count == 16 }

    var isLoopback: Bool {
      if address.count == 4 { return address[0] == 127 }
      if address == [UInt8](repeating: 0, count: 15) + [1] { return true }
      // An IPv4 loopback address mapped into IPv6.
      return address.prefix(10).allSatisfy { $0 == 0 } && address[10] == 0xFF
        && address[11] == 0xFF && address[12] == 127
    }

    /// `0100007F:1F90`: the address as the kernel prints it (each 32-bit word in host order,
    /// in hex), a colon, the port in hex.
    var kernelText: Substring {
      var text = ""
      for word in stride(from: 0, to: address.count, by: 4) {
        // The kernel prints each 32-bit word as a number in host (little-endian) order.
        for byte in address[word..<word + 4].reversed() { text += hex(byte) }
      }
      text += ":" + hex(UInt8(port >> 8)) + hex(UInt8(port & 0xFF))
      return Substring(text)
    }

    private func hex(_ byte: UInt8) -> String {
      let digits = Array("0123456789ABCDEF")
      return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
  }

  private static func endpoint(_ fd: Int32, peer: Bool) -> Endpoint? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let status = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length)
      }
    }
    guard status == 0 else { return nil }
    let family = Int32(storage.ss_family)
    return withUnsafeBytes(of: &storage) { raw -> Endpoint? in
      switch family {
      case AF_INET:
        let address = raw.load(as: sockaddr_in.self)
        let bytes = withUnsafeBytes(of: address.sin_addr) { Array($0) }
        return Endpoint(address: bytes, port: UInt16(bigEndian: address.sin_port))
      case AF_INET6:
        let address = raw.load(as: sockaddr_in6.self)
        let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
        return Endpoint(address: bytes, port: UInt16(bigEndian: address.sin6_port))
      default:
        return nil
      }
    }
  }

  private static func readFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }
      bytes += chunk[0..<n]
      // The table of a busy machine can be long; a connection's own line is near its end only
      // by chance, so read it all, but never more than 64 MiB.
      if bytes.count > 64 << 20 { return nil }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
