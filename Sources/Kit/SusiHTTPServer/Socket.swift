import Glibc

/// Thin wrappers over the POSIX socket calls the server makes.
enum Socket {
  /// Creates a non-blocking listening TCP socket bound to `host:port`; returns it and the port
  /// actually bound (useful when `port` is 0).
  static func listen(host: String, port: Int, backlog: Int32) throws -> (fd: Int32, port: Int) {
    guard (0...65535).contains(port) else {
      throw HTTPServerError(code: .invalidAddress, message: "port \(port) is not in 0…65535")
    }
    var storage = sockaddr_storage()
    let length: socklen_t
    let family: Int32
    var ipv4 = in_addr()
    var ipv6 = in6_addr()
    if inet_pton(AF_INET, host, &ipv4) == 1 {
      family = AF_INET
      length = socklen_t(MemoryLayout<sockaddr_in>.size)
      withUnsafeMutableBytes(of: &storage) { raw in
        let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
        address.pointee.sin_family = sa_family_t(AF_INET)
        address.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
        address.pointee.sin_addr = ipv4
      }
    } else if inet_pton(AF_INET6, host, &ipv6) == 1 {
      family = AF_INET6
      length = socklen_t(MemoryLayout<sockaddr_in6>.size)
      withUnsafeMutableBytes(of: &storage) { raw in
        let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
        address.pointee.sin6_family = sa_family_t(AF_INET6)
        address.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
        address.pointee.sin6_addr = ipv6
      }
    } else {
      throw HTTPServerError(
        code: .invalidAddress, message: "host \"\(host)\" is not an IPv4 or IPv6 address")
    }

    let fd = socket(
      family,
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HTTPServerError.systemCall("socket") }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    let bound = withUnsafePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard bound == 0 else {
      let error = HTTPServerError.systemCall("bind", "\(host):\(port)")
      close(fd)
      throw error
    }
    guard Glibc.listen(fd, backlog) == 0 else {
      let error = HTTPServerError.systemCall("listen")
      close(fd)
      throw error
    }
    var actual = sockaddr_storage()
    var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &actual) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
    }
    return (fd, Int(portOf(actual)))
  }

  /// The port in a socket address, in host byte order.
  static func portOf(_ storage: sockaddr_storage) -> UInt16 {
    var storage = storage
    let family = Int32(storage.ss_family)
    return withUnsafeBytes(of: &storage) { raw in
      switch family {
      case AF_INET: UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
      case AF_INET6: UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
      default: 0
      }
    }
  }

  /// The textual IP address in a socket address, e.g. `127.0.0.1`.
  static func addressText(_ storage: sockaddr_storage) -> String {
    var storage = storage
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let family = Int32(storage.ss_family)
    let result: UnsafePointer<CChar>? = withUnsafeMutableBytes(of: &storage) { raw in
      switch family {
      case AF_INET:
        let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
        return inet_ntop(AF_INET, &address.pointee.sin_addr, &text, socklen_t(text.count))
      case AF_INET6:
        let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
        return inet_ntop(AF_INET6, &address.pointee.sin6_addr, &text, socklen_t(text.count))
      default:
        return nil
      }
    }
    guard result != nil else { return "unknown" }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Small responses go out at once instead of waiting for more data (Nagle).
  static func disableDelay(_ fd: Int32) {
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
  }

  /// Sends what it can without blocking; nil when the peer is gone, 0 when the socket is full.
  static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int? {
    while true {
      let sent = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
      if sent >= 0 { return sent }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return 0
      default: return nil
      }
    }
  }

  /// Answers a connection over the limit with a canned 503 and closes it, without blocking.
  /// Over TLS (`speaksTLS`) nothing is sent: a plain-text reply on a TLS port would read as
  /// "the server does not speak TLS", and a handshake would spend CPU on exactly the
  /// connections the limit keeps out; the connection is closed cleanly (a FIN, no reset), which
  /// a client sees as the server closing during the handshake.
  static func refuse(_ fd: Int32, speaksTLS: Bool = false) {
    if !speaksTLS {
      HTTPResponseEncoder.serviceUnavailable.withUnsafeBytes { _ = send(fd, $0) }
    }
    // Read what already arrived so that closing does not reset the connection before the client
    // has read the 503.
    var discard = [UInt8](repeating: 0, count: 4096)
    _ = recv(fd, &discard, discard.count, Int32(MSG_DONTWAIT))
    shutdown(fd, Int32(SHUT_WR))
    close(fd)
  }
}
