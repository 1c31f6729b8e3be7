import Foundation

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

  private func readLine() throws -> String {
    while true {
      if let index = buffer.firstIndex(of: 10), index > 0, buffer[index - 1] == 13 {
        let line = String(decoding: buffer[0..<(index - 1)], as: UTF8.self)
        buffer.removeFirst(index + 1)
        return line
      }
      guard try fill() else {
        throw LoopbackHTTPError(description: "connection closed mid-line")
      }
    }
  }

  private func readExactly(_ count: Int) throws -> [UInt8] {
    while buffer.count < count {
      guard try fill() else {
        throw LoopbackHTTPError(description: "connection closed mid-body")
      }
    }
    let bytes = Array(buffer[0..<count])
    buffer.removeFirst(count)
    return bytes
  }

  /// Reads a status line and headers.
  public func readHeadBlocking() throws -> LoopbackResponse {
    let statusLine = try readLine()
    let parts = statusLine.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
      throw LoopbackHTTPError(description: "bad status line: \(statusLine)")
    }
    var headers: [(String, String)] = []
    while true {
      let line = try readLine()
      if line.isEmpty { break }
      guard let colon = line.firstIndex(of: ":") else {
        throw LoopbackHTTPError(description: "bad header line: \(line)")
      }
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      headers.append((String(line[..<colon]), value))
    }
    return LoopbackResponse(status: status, headers: headers, body: [])
  }

  /// Reads the next chunk of a chunked body; nil at the last chunk.
  public func readChunkBlocking() throws -> [UInt8]? {
    let sizeLine = try readLine()
    guard let size = Int(sizeLine, radix: 16) else {
      throw LoopbackHTTPError(description: "bad chunk size line: \(sizeLine)")
    }
    if size == 0 {
      _ = try readLine()
      return nil
    }
    let data = try readExactly(size)
    guard try readExactly(2) == [13, 10] else {
      throw LoopbackHTTPError(description: "chunk without CRLF")
    }
    return data
  }

  /// Reads one whole response. `toHead` says the request was HEAD, so no body follows.
  public func readResponseBlocking(toHead: Bool = false) throws -> LoopbackResponse {
    var response = try readHeadBlocking()
    if toHead || response.status == 204 || response.status == 304 || response.status < 200 {
      return response
    }
    if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
      while let chunk = try readChunkBlocking() {
        response.chunkSizes.append(chunk.count)
        response.body.append(contentsOf: chunk)
      }
    } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
      response.body = try readExactly(length)
    } else {
      response.body = try readToEndBlocking()
    }
    return response
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

  /// Whether the server closes the connection without sending anything more.
  public func readsEndOfStream() async throws -> Bool {
    try await onThread { try self.readsEndOfStreamBlocking() }
  }
}
