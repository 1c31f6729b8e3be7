import Foundation
import Glibc

@testable import SusiHTTP

/// A response as a raw-socket client read it.
struct RawResponse: Sendable {
  var status: Int
  var headers: [(name: String, value: String)]
  var body: [UInt8]
  /// The chunk sizes of a chunked body, in order.
  var chunkSizes: [Int] = []

  var text: String { String(decoding: body, as: UTF8.self) }

  func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }
}

struct RawClientError: Error, CustomStringConvertible {
  var description: String
}

/// A blocking TCP client that speaks bytes, for tests that need full control of the wire.
/// Every read gives up after a minute, so a broken server fails a test instead of hanging it,
/// while a server merely starved by tests running in parallel still gets to answer.
final class RawClient: @unchecked Sendable {
  let fd: Int32
  private var buffer: [UInt8] = []
  private(set) var sawEndOfStream = false

  /// Connects to 127.0.0.1:`port`; `from` picks another loopback source address
  /// (`127.0.0.2`), to appear as a different client.
  init(port: Int, from source: String? = nil, timeoutSeconds: Int = 60) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RawClientError(description: "socket failed") }
    if let source {
      var local = sockaddr_in()
      local.sin_family = sa_family_t(AF_INET)
      local.sin_addr.s_addr = inet_addr(source)
      let bound = withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      // No close here: once `fd` is set, a throwing init still runs `deinit`, which closes it
      // (closing it twice could close another test's descriptor that reused the number).
      guard bound == 0 else {
        throw RawClientError(description: "bind to \(source) failed: errno \(errno)")
      }
    }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
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
      throw RawClientError(description: "connect failed: errno \(errno)")
    }
  }

  deinit { close(fd) }

  func send(_ text: String) throws { try send(Array(text.utf8)) }

  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes { raw in
        Glibc.send(fd, raw.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else { throw RawClientError(description: "send failed: errno \(errno)") }
      offset += sent
    }
  }

  /// Closes the sending side, as `nc -N` does after its input.
  func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

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
    throw RawClientError(description: "recv failed or timed out: errno \(errno)")
  }

  private func readLine() throws -> String {
    while true {
      if let index = buffer.firstIndex(of: 10), index > 0, buffer[index - 1] == 13 {
        let line = String(decoding: buffer[0..<(index - 1)], as: UTF8.self)
        buffer.removeFirst(index + 1)
        return line
      }
      guard try fill() else { throw RawClientError(description: "connection closed mid-line") }
    }
  }

  private func readExactly(_ count: Int) throws -> [UInt8] {
    while buffer.count < count {
      guard try fill() else { throw RawClientError(description: "connection closed mid-body") }
    }
    let bytes = Array(buffer[0..<count])
    buffer.removeFirst(count)
    return bytes
  }

  /// Reads a status line and headers.
  func readHeadBlocking() throws -> RawResponse {
    let statusLine = try readLine()
    let parts = statusLine.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
      throw RawClientError(description: "bad status line: \(statusLine)")
    }
    var headers: [(String, String)] = []
    while true {
      let line = try readLine()
      if line.isEmpty { break }
      guard let colon = line.firstIndex(of: ":") else {
        throw RawClientError(description: "bad header line: \(line)")
      }
      headers.append(
        (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: " ")))
    }
    return RawResponse(status: status, headers: headers, body: [])
  }

  /// Reads the next chunk of a chunked body; nil at the last chunk.
  func readChunkBlocking() throws -> [UInt8]? {
    let sizeLine = try readLine()
    guard let size = Int(sizeLine, radix: 16) else {
      throw RawClientError(description: "bad chunk size line: \(sizeLine)")
    }
    if size == 0 {
      _ = try readLine()
      return nil
    }
    let data = try readExactly(size)
    guard try readExactly(2) == [13, 10] else {
      throw RawClientError(description: "chunk without CRLF")
    }
    return data
  }

  /// Reads one whole response. `toHead` says the request was HEAD, so no body follows.
  func readResponseBlocking(toHead: Bool = false) throws -> RawResponse {
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
      while try fill() {}
      response.body = buffer
      buffer = []
    }
    return response
  }

  /// Whether the server closes the connection without sending anything more.
  func readsEndOfStreamBlocking() throws -> Bool {
    if !buffer.isEmpty { return false }
    return try !fill() && buffer.isEmpty
  }
}

extension StringProtocol {
  func trimmingCharacters(in set: Character) -> String {
    var text = Substring(self)
    while text.first == set { text.removeFirst() }
    while text.last == set { text.removeLast() }
    return String(text)
  }
}

extension RawClient {
  // Reads block a thread of their own, never one of the cooperative pool: a test waiting on a
  // socket must not starve the tasks (actors, handlers) that would answer it.

  /// Reads a status line and headers.
  func readHead() async throws -> RawResponse { try await offPool { try self.readHeadBlocking() } }

  /// Reads the next chunk of a chunked body; nil at the last chunk.
  func readChunk() async throws -> [UInt8]? { try await offPool { try self.readChunkBlocking() } }

  /// Reads one whole response. `toHead` says the request was HEAD, so no body follows.
  func readResponse(toHead: Bool = false) async throws -> RawResponse {
    try await offPool { try self.readResponseBlocking(toHead: toHead) }
  }

  /// Whether the server closes the connection without sending anything more.
  func readsEndOfStream() async throws -> Bool {
    try await offPool { try self.readsEndOfStreamBlocking() }
  }
}

/// Runs a blocking call on a new thread and waits for it without holding a pool thread.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread {
      do { continuation.resume(returning: try body()) } catch {
        continuation.resume(throwing: error)
      }
    }
    thread.start()
  }
}
