#if canImport(Glibc)
  import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on a port the system picks, and listening (backlog 16)
/// unless `listening` is false; nil when any step fails. The caller owns the descriptor.
public func loopbackSocket(listening: Bool = true) -> (fd: Int32, port: Int)? {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { return nil }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = 0
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
  }
  let named = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
  }
  guard bound == 0, named == 0, !listening || listen(fd, 16) == 0 else {
    close(fd)
    return nil
  }
  return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
