import Foundation
import SusiHTTPTesting
import SusiTLS
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 (port 0) for exercising the transport: each
/// connection gets one scripted reply, chosen by the request's path. With a `TLSContext` it
/// speaks HTTPS, through the same `TLSSession` state machine the client uses, on blocking
/// sockets.
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
  private let tls: TLSContext?

  init?(tls: TLSContext? = nil, route: @escaping @Sendable (_ path: String) -> Reply) {
    guard let (fd, port) = loopbackSocket() else { return nil }
    self.port = UInt16(port)
    listener = fd
    self.route = route
    self.tls = tls
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  var baseURL: String { tls == nil ? "http://127.0.0.1:\(port)" : "https://localhost:\(port)" }

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
    let stream = Stream(fd: client, tls: tls.flatMap { try? TLSSession(server: $0) })
    guard stream.handshake() else {
      close(client)
      return
    }
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = stream.read(&buffer)
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
      stream.write(reply)
      close(client)
    case .silence:
      // Keep the connection open and say nothing until the client gives up.
      var byte: [UInt8] = [0]
      _ = stream.read(&byte)
      close(client)
    }
  }

  /// A blocking connection, plain or through TLS.
  private struct Stream {
    let fd: Int32
    let tls: TLSSession?

    /// Completes the TLS handshake (when there is TLS); false when it failed.
    func handshake() -> Bool {
      guard let tls else { return true }
      while true {
        guard let progress = try? tls.handshake() else {
          sendRaw(tls.takeOutput())
          return false
        }
        sendRaw(tls.takeOutput())
        if progress == .complete { return true }
        guard receiveRaw(into: tls) else { return false }
      }
    }

    /// Reads plaintext into `buffer`; 0 at the end.
    func read(_ buffer: inout [UInt8]) -> Int {
      guard let tls else { return Glibc.read(fd, &buffer, buffer.count) }
      while true {
        let result = buffer.withUnsafeMutableBytes { raw in
          Result { () throws(TLSFailure) in try tls.read(into: raw) }
        }
        switch result {
        case .success(.bytes(let n)): return n
        case .success(.needsInput): if !receiveRaw(into: tls) { tls.receivedEnd() }
        default: return 0
        }
      }
    }

    func write(_ bytes: [UInt8]) {
      guard let tls else { return sendRaw(bytes) }
      try? tls.write(bytes)
      sendRaw(tls.takeOutput())
    }

    private func receiveRaw(into tls: TLSSession) -> Bool {
      var chunk = [UInt8](repeating: 0, count: 16 * 1024)
      let n = Glibc.read(fd, &chunk, chunk.count)
      guard n > 0 else { return false }
      return (try? tls.received(Array(chunk[0..<n]))) != nil
    }

    private func sendRaw(_ bytes: [UInt8]) {
      var sent = 0
      while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { break }
        sent += n
      }
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
