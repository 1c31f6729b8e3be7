import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 (port 0) for exercising the URLSession transport:
/// each connection gets one scripted reply, chosen by the request's path.
final class LoopbackServer: Sendable {
  /// What to send back: raw bytes (status line, headers and body), or nothing at all.
  enum Reply: Sendable {
    case bytes([UInt8])
    case silence
  }

  let port: UInt16
  private let listener: Int32
  private let received = Mutex<[String]>([])
  private let route: @Sendable (String) -> Reply

  init?(route: @escaping @Sendable (_ path: String) -> Reply) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard bound == 0, listen(fd, 16) == 0 else {
      close(fd)
      return nil
    }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    port = UInt16(bigEndian: address.sin_port)
    listener = fd
    self.route = route
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  var baseURL: String { "http://127.0.0.1:\(port)" }

  /// The request heads received so far (request line and headers), with bodies appended.
  var requests: [String] { received.withLock { $0 } }

  /// Stops accepting. The accept loop closes the listener itself: closing it here could let
  /// a loop that has not reached `accept` yet accept on a new socket that reused the number.
  func stop() {
    shutdown(listener, Int32(SHUT_RDWR))
  }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      guard client >= 0 else {
        close(listener)
        return
      }
      Thread { [self] in serve(client) }.start()
    }
  }

  private func serve(_ client: Int32) {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = read(client, &buffer, buffer.count)
      guard n > 0 else { break }
      data += buffer[0..<n]
      if let head = complete(data) {
        received.withLock { $0.append(head) }
        break
      }
    }
    let path =
      String(decoding: data, as: UTF8.self).split(separator: " ").dropFirst().first.map(String.init)
      ?? "/"
    switch route(path) {
    case .bytes(let reply):
      var sent = 0
      while sent < reply.count {
        let n = reply[sent...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        guard n > 0 else { break }
        sent += n
      }
      close(client)
    case .silence:
      // Keep the connection open and say nothing until the client gives up.
      var byte: UInt8 = 0
      _ = read(client, &byte, 1)
      close(client)
    }
  }

  /// The whole request (head and Content-Length body) once it has arrived.
  private func complete(_ data: [UInt8]) -> String? {
    let text = String(decoding: data, as: UTF8.self)
    guard let end = text.range(of: "\r\n\r\n") else { return nil }
    let head = text[..<end.lowerBound]
    let length =
      head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
      .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
    let body = text[end.upperBound...]
    return body.utf8.count >= length ? text : nil
  }

  /// A complete reply with `status`, extra headers and a body of `body`.
  static func reply(_ status: Int, _ headers: [String] = [], body: [UInt8] = []) -> Reply {
    let head =
      (["HTTP/1.1 \(status) X", "Content-Length: \(body.count)", "Connection: close"] + headers)
      .joined(separator: "\r\n")
    return .bytes(Array((head + "\r\n\r\n").utf8) + body)
  }
}
