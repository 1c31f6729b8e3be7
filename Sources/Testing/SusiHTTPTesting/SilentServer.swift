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
    guard let (fd, port) = loopbackSocket(listening: listening) else { return nil }
    socket = fd
    self.port = port
  }

  public var url: String { "http://127.0.0.1:\(port)" }

  /// Waits (at most `timeout` seconds) until a client has connected; true when one has.
  public func waitForConnection(timeout: Double) -> Bool {
    var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, Int32(timeout * 1000)) == 1
  }

  deinit { close(socket) }
}
