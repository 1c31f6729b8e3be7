import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP listener on 127.0.0.1 that accepts connections into its backlog and never answers:
/// a server whose requests hang, for testing Ctrl-C in the middle of a request.
///
/// Made with `listening: false` it is a closed port instead: bound and not listening, so every
/// connection is refused, and no other server can take the port while this one holds it (a
/// port freed by stopping a server can be taken by another test's server at once).
public final class SilentServer: Sendable {
  public let socket: Int32
  public let port: Int

  public init?(listening: Bool = true) {
    let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, !listening || listen(fd, 16) == 0 else {
      close(fd)
      return nil
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else {
      close(fd)
      return nil
    }
    socket = fd
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  public var url: String { "http://127.0.0.1:\(port)" }

  /// Waits (at most `timeout` seconds) until a client has connected; true when one has.
  public func waitForConnection(timeout: Double) -> Bool {
    var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, Int32(timeout * 1000)) == 1
  }

  deinit { close(socket) }
}
