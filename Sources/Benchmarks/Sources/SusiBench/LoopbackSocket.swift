import Glibc

/// A TCP connection to 127.0.0.1:`port` with Nagle's delay off: its descriptor, or -1 when it
/// cannot be made. The benchmarks' load generators speak HTTP on such sockets by hand.
func connectToLoopback(port: Int) -> Int32 {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { return -1 }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let result = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
    }
  }
  guard result == 0 else {
    close(fd)
    return -1
  }
  var one: Int32 = 1
  setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
  return fd
}
