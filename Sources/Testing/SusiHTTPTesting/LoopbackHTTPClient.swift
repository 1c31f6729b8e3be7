import Foundation
import SusiHTTPTypes

#if canImport(Glibc)
  import Glibc
#endif

/// A response as the loopback client read it.
public struct LoopbackResponse: Sendable {
  public var status: Int
  public var headers: [(name: String, value: String)]
  public var body: [UInt8]
  /// The chunk sizes of a chunked body, in order.
  public var chunkSizes: [Int] = []

  public var text: String { String(decoding: body, as: UTF8.self) }

  /// The first header called `name`, in any case.
  public func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }
}

/// Why the loopback client failed: no connection, a broken or closed stream, a malformed
/// response, or a read that timed out.
public struct LoopbackHTTPError: Error, CustomStringConvertible {
  public var description: String
}

/// A blocking HTTP/1.1 client on one connection to 127.0.0.1, for tests that talk to a real
/// server. `request` sends a whole request and reads its response, keeping the connection
/// alive; the raw calls (`send`, `readHead`, `readChunk`, …) give full control of the bytes on
/// the wire. Every read and write gives up after `timeoutSeconds`, so a broken server fails a
/// test instead of hanging it. It blocks: call it on a thread of its own (`onThread`), or
/// through the async reads, never on the tasks a server needs.
public final class LoopbackHTTPClient: @unchecked Sendable {
  public let port: Int
  private let source: String?
  private let timeoutSeconds: Int
  private var fd: Int32 = -1
  private var buffer: [UInt8] = []
  /// Whether the connection has carried a request: a failure on it may only mean the server
  /// closed it while it was idle.
  private var used = false
  /// The method of the last request sent with `request` or `sendRequest` (how its reply is
  /// framed); raw bytes sent with `send` leave it as it was.
  private var lastMethod = HTTPMethod.get
  public private(set) var sawEndOfStream = false

  /// Connects to 127.0.0.1:`port`; `from` picks another loopback source address
  /// (`127.0.0.2`), to appear as a different client.
  public init(port: Int, from source: String? = nil, timeoutSeconds: Int = 60) throws {
    self.port = port
    self.source = source
    self.timeoutSeconds = timeoutSeconds
    try connect()
  }

  deinit { close() }

  private func connect() throws {
    close()
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw LoopbackHTTPError(description: "socket failed: errno \(errno)") }
    buffer = []
    parser = nil
    used = false
    sawEndOfStream = false
    if let source {
      var local = sockaddr_in()
      local.sin_family = sa_family_t(AF_INET)
      local.sin_addr.s_addr = inet_addr(source)
      let bound = withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard bound == 0 else {
        throw LoopbackHTTPError(description: "bind to \(source) failed: errno \(errno)")
      }
    }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      throw LoopbackHTTPError(description: "connect to port \(port) failed: errno \(errno)")
    }
  }

  /// Closes the connection; the next `request` opens a new one.
  public func close() {
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
  }

  // MARK: Whole requests

  /// Sends `METHOD TARGET` with `headers` (plus `Host`, and `Content-Length` when there is a
  /// body or the method is one that carries one, unless given) and reads the response. A
  /// connection the server closed while idle is opened again, once.
  public func request(
    _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
  ) throws -> LoopbackResponse {
    let bytes = Self.requestBytes(method, target, port: port, headers: headers, body: body)
    lastMethod = HTTPMethod(method)
    let reusing = fd >= 0 && used
    do {
      return try exchange(bytes, toHead: method == "HEAD")
    } catch  where reusing {
      try connect()
      return try exchange(bytes, toHead: method == "HEAD")
    }
  }

  /// `request` with a text body.
  public func request(
    _ method: String, _ target: String, headers: [(String, String)] = [], body: String
  ) throws -> LoopbackResponse {
    try request(method, target, headers: headers, body: Array(body.utf8))
  }

  /// Sends a request as `request` writes it, without reading the response (for a response
  /// read piece by piece: `readHead`, then `readChunk`).
  public func sendRequest(
    _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
  ) throws {
    if fd < 0 { try connect() }
    used = true
    lastMethod = HTTPMethod(method)
    try send(Self.requestBytes(method, target, port: port, headers: headers, body: body))
  }

  private func exchange(_ bytes: [UInt8], toHead: Bool) throws -> LoopbackResponse {
    if fd < 0 { try connect() }
    used = true
    let response: LoopbackResponse
    do {
      try send(bytes)
      response = try readResponseBlocking(toHead: toHead)
    } catch let sending {
      // A server may answer before the whole request is sent (413 for an oversize body) and
      // close, so the rest of the body meets a closed connection: the answer still counts.
      guard let answered = try? readResponseBlocking(toHead: toHead) else { throw sending }
      response = answered
    }
    if response.header("Connection")?.lowercased() == "close" { close() }
    return response
  }

  private static func requestBytes(
    _ method: String, _ target: String, port: Int, headers: [(String, String)], body: [UInt8]
  ) -> [UInt8] {
    let names = Set(headers.map { $0.0.lowercased() })
    var head = "\(method) \(target) HTTP/1.1\r\n"
    if !names.contains("host") { head += "Host: 127.0.0.1:\(port)\r\n" }
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    let carriesBody = !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method)
    if carriesBody && !names.contains("content-length") && !names.contains("transfer-encoding") {
      head += "Content-Length: \(body.count)\r\n"
    }
    head += "\r\n"
    return Array(head.utf8) + body
  }

  // MARK: Raw bytes

  public func send(_ text: String) throws { try send(Array(text.utf8)) }

  public func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes { raw in
        Glibc.send(fd, raw.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
      }
      if sent < 0 && errno == EINTR { continue }
      guard sent > 0 else { throw LoopbackHTTPError(description: "send failed: errno \(errno)") }
      offset += sent
    }
  }

  /// Closes the sending side, as `nc -N` does after its input.
  public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

  /// Reads more bytes into the buffer; false at end of stream or on a reset.
  @discardableResult
  private func fill() throws -> Bool {
    var chunk = [UInt8](repeating: 0, count: 65536)
    let count = recv(fd, &chunk, chunk.count, 0)
    if count > 0 {
      buffer.append(contentsOf: chunk[0..<count])
      return true
    }
    if count == 0 || errno == ECONNRESET {
      sawEndOfStream = true
      return false
    }
    throw LoopbackHTTPError(description: "recv failed or timed out: errno \(errno)")
  }

  /// The parser of the reply being read, with the shared `HTTPResponseParser`; nil between
  /// replies.
  private var parser: HTTPResponseParser?

  /// The next event of the current reply, reading as needed.
  private func nextEvent(method: HTTPMethod) throws -> HTTPResponseEvent {
    if parser == nil {
      parser = HTTPResponseParser(
        requestMethod: method, limits: HTTPResponseLimits(maximumBodyBytes: 1 << 30),
        reportsInterimReplies: true)
      parser?.receive(buffer)
      buffer = []
    }
    while true {
      do {
        if let event = try parser?.next() {
          if case .end = event, let rest = parser?.remainder {
            buffer = Array(rest)
            parser = nil
          }
          return event
        }
      } catch {
        parser = nil
        throw LoopbackHTTPError(description: "bad response: \(error)")
      }
      let before = buffer.count
      if try fill() {
        parser?.receive(buffer[before...])
        buffer.removeSubrange(before...)
      } else {
        parser?.receiveEnd()
      }
    }
  }

  /// Reads a status line and headers (an interim `100 Continue` too, as its own head).
  public func readHeadBlocking() throws -> LoopbackResponse {
    try readHead(method: lastMethod)
  }

  private func readHead(method: HTTPMethod) throws -> LoopbackResponse {
    guard case .head(let head) = try nextEvent(method: method) else {
      throw LoopbackHTTPError(description: "a body where a head was expected")
    }
    return LoopbackResponse(
      status: head.status, headers: head.headers.fields.map { ($0.name, $0.value) }, body: [])
  }

  /// Reads the next chunk of a chunked body (or the next piece of another body); nil at the end.
  public func readChunkBlocking() throws -> [UInt8]? {
    switch try nextEvent(method: lastMethod) {
    case .body(let bytes): return bytes
    case .end: return nil
    case .head: throw LoopbackHTTPError(description: "a head where a body was expected")
    }
  }

  /// Reads one whole response. `toHead` says the request was HEAD, so no body follows.
  public func readResponseBlocking(toHead: Bool = false) throws -> LoopbackResponse {
    var response = try readHead(method: toHead ? .head : lastMethod)
    if response.status < 200 && response.status != 101 { return response }
    let chunked = parser?.isChunked == true
    while true {
      switch try nextEvent(method: lastMethod) {
      case .body(let bytes):
        if chunked { response.chunkSizes.append(bytes.count) }
        response.body.append(contentsOf: bytes)
      case .end: return response
      case .head: throw LoopbackHTTPError(description: "a head where a body was expected")
      }
    }
  }

  /// Everything the server sends until it closes the connection.
  public func readToEndBlocking() throws -> [UInt8] {
    while try fill() {}
    defer { buffer = [] }
    return buffer
  }

  /// Whether the server closes the connection without sending anything more.
  public func readsEndOfStreamBlocking() throws -> Bool {
    if !buffer.isEmpty { return false }
    return try !fill() && buffer.isEmpty
  }
}

extension LoopbackHTTPClient {
  // Reads block a thread of their own, never one of the cooperative pool: a test waiting on a
  // socket must not starve the tasks (actors, handlers) that would answer it.

  /// Reads a status line and headers.
  public func readHead() async throws -> LoopbackResponse {
    try await onThread { try self.readHeadBlocking() }
  }

  /// Reads the next chunk of a chunked body; nil at the last chunk.
  public func readChunk() async throws -> [UInt8]? {
    try await onThread { try self.readChunkBlocking() }
  }

  /// Reads one whole response. `toHead` says the request was HEAD, so no body follows.
  public func readResponse(toHead: Bool = false) async throws -> LoopbackResponse {
    try await onThread { try self.readResponseBlocking(toHead: toHead) }
  }

  /// Everything the server sends until it closes the connection, as raw bytes: for checking
  /// the server's bytes without the shared reply parser.
  public func readToEnd() async throws -> [UInt8] {
    try await onThread { try self.readToEndBlocking() }
  }

  /// Whether the server closes the connection without sending anything more.
  public func readsEndOfStream() async throws -> Bool {
    try await onThread { try self.readsEndOfStreamBlocking() }
  }
}
