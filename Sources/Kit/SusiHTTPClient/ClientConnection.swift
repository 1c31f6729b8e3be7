import SusiTLS

#if canImport(Glibc)
  import Glibc
#endif

/// One TCP connection to an HTTP/1.1 server (or to a proxy), non-blocking, owned by the
/// `ClientEngine` on its loop thread; for `https://` a `TLSSession` sits between the socket
/// and the HTTP bytes.
final class ClientConnection {
  let fd: Int32
  let poolKey: String
  /// Replies read on this connection; more than zero means it was reused.
  var exchanges = 0
  /// When it went back to the pool, in monotonic seconds.
  var idleSince = 0.0
  /// TLS over the socket (`https://`), once the handshake began.
  var tls: TLSSession?
  /// What the loop calls when the connection stirs while idle in the pool: made on its first
  /// return there and kept, so returning it allocates nothing.
  var idleHandler: ClientLoop.SocketHandler?
  /// What the loop calls when the connection stirs while it carries exchanges: made once.
  var busyHandler: ClientLoop.SocketHandler?
  /// The exchanges whose requests went out on this connection, in order: the first is the one
  /// being read (or set up); the others were pipelined behind it and are answered after it.
  var inFlight: [ClientExchange] = []
  /// Whether the server answered a reply here as a persistent HTTP/1.1 connection: only then
  /// are requests pipelined onto it.
  var isPersistent = false
  /// Raw bytes for the socket, not yet sent: requests queued together go out in one write.
  private var outgoing: [UInt8] = []
  private var outgoingStart = 0
  /// Bytes handed to the socket over the connection's life.
  private(set) var bytesSent = 0

  init(fd: Int32, poolKey: String) {
    self.fd = fd
    self.poolKey = poolKey
  }

  deinit { close(fd) }

  /// A non-blocking socket connecting to `address`: the descriptor and whether it is already
  /// connected (false: wait until it is writable, then ask `connectError`).
  static func startConnecting(to address: SocketAddress) -> (fd: Int32, connected: Bool)? {
    let family = address.bytes.count == 4 ? AF_INET : AF_INET6
    let fd = socket(
      family,
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { return nil }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    let result: Int32
    if address.bytes.count == 4 {
      var v4 = sockaddr_in()
      v4.sin_family = sa_family_t(AF_INET)
      v4.sin_port = address.port.bigEndian
      withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: address.bytes) }
      result = withUnsafePointer(to: &v4) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    } else {
      var v6 = sockaddr_in6()
      v6.sin6_family = sa_family_t(AF_INET6)
      v6.sin6_port = address.port.bigEndian
      withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: address.bytes) }
      result = withUnsafePointer(to: &v6) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    }
    if result == 0 { return (fd, true) }
    if errno == EINPROGRESS { return (fd, false) }
    close(fd)
    return (-1, false)
  }

  /// The outcome of a connect that was in progress: 0 when it succeeded.
  static func connectError(_ fd: Int32) -> Int32 {
    var error: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
    return error
  }

  /// Whether the idle connection can take another request: nothing to read (no close, no
  /// stray bytes) and no error.
  var isUsableIdle: Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, 0) > 0 else { return true }
    guard let tls, entry.revents & Int16(POLLIN) != 0 else { return false }
    // A TLS server may send records of its own between replies (session tickets): they are
    // no reply, and the connection stays usable unless they carry data or a close.
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n > 0 {
        let outcome = chunk.withUnsafeBytes { raw in
          Result { () throws(TLSFailure) in
            try tls.received(UnsafeRawBufferPointer(rebasing: raw[0..<n]))
          }
        }
        guard case .success = outcome else { return false }
        continue
      }
      if n < 0 && (errno == EAGAIN || errno == EINTR) { break }
      return false
    }
    let result = chunk.withUnsafeMutableBytes { raw in
      Result { () throws(TLSFailure) in try tls.read(into: raw) }
    }
    return (try? result.get()) == .needsInput && tls.pendingOutput == 0
  }

  /// Whether bytes wait to be sent.
  var hasUnsent: Bool { outgoingStart < outgoing.count }

  /// Bytes queued over the connection's life, sent or not: where the last request queued ends.
  var bytesQueued: Int { bytesSent + outgoing.count - outgoingStart }

  /// Queues bytes for the socket.
  func queue(_ bytes: [UInt8]) {
    outgoing.append(contentsOf: bytes)
  }

  /// Sends what it can of the queued bytes; false when the socket is full.
  func flush() throws(TransportError) -> Bool {
    while outgoingStart < outgoing.count {
      let n = outgoing[outgoingStart...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if n > 0 {
        outgoingStart += n
        bytesSent += n
      } else if n < 0 && errno == EINTR {
        continue
      } else if n < 0 && errno == EAGAIN {
        return false
      } else {
        throw .connectionLost(Self.resetWhileSending)
      }
    }
    outgoing.removeAll(keepingCapacity: true)
    outgoingStart = 0
    return true
  }

  /// The message for a reused connection that the server had closed before our request.
  static let staleConnection = "the server closed the idle connection"
  static let resetWhileSending = "the connection was reset while sending"
}
