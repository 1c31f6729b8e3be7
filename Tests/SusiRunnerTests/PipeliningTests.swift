import Foundation
import SusiHTTPTesting
import SusiHTTPTypes
import SusiTesting
import Synchronization
import Testing

@testable import SusiHTTPClient

#if canImport(Glibc)
  import Glibc
#endif

/// Requests pipelined on a kept-alive connection, against a raw server whose every connection
/// follows a script: who gets which reply, what is sent again when a connection ends, what is
/// never pipelined, cancelling one in the middle, and replies split anywhere.
@Suite(.hangLimit)
struct PipeliningTests {
  /// A reply whose body names the request it answers.
  static func reply(to path: String, _ extraHeader: String = "") -> [UInt8] {
    Array("HTTP/1.1 200 OK\r\nContent-Length: \(path.utf8.count)\r\n\(extraHeader)\r\n\(path)".utf8)
  }

  static func get(_ server: ScriptedServer, _ path: String) -> TransportRequest {
    TransportRequest(url: server.url + path, idleTimeout: 60, totalTimeout: 60)
  }

  /// The body of the reply to `path` on `transport`, as text.
  static func body(_ transport: SocketTransport, _ server: ScriptedServer, _ path: String)
    async throws -> String
  {
    String(decoding: try await transport.send(get(server, path)).body, as: UTF8.self)
  }

  @Test func severalGETsGoOutOnOneConnectionAndEachGetsItsOwnReply() async throws {
    let server = try #require(
      ScriptedServer { _, connection in
        let first = connection.readRequests(1)
        connection.write(Self.reply(to: first[0]))
        // Nothing is answered before all four are in: only pipelining gets them here.
        let paths = connection.readRequests(4)
        connection.write(paths.flatMap { Self.reply(to: $0) })
        connection.readUntilClosed()
      })
    defer { server.stop() }
    let transport = SocketTransport(maximumConnectionsPerOrigin: 1)
    #expect(try await Self.body(transport, server, "/first") == "/first")
    let paths = ["/a", "/bb", "/ccc", "/dddd"]
    let tasks = paths.map { path in Task { try await Self.body(transport, server, path) } }
    for (path, task) in zip(paths, tasks) { #expect(try await task.value == path) }
    #expect(server.received.count == 5)
    #expect(transport.statistics.connectionsOpened == 1)
    #expect(transport.statistics.requestsPipelined == 3)
    #expect(await transport.connectionCounts(server.url) == (open: 1, idle: 1))
  }

  @Test func aRequestTheServerClosedOnUnansweredIsSentAgainOnANewConnection() async throws {
    let server = try #require(
      ScriptedServer { index, connection in
        if index == 0 {
          connection.write(Self.reply(to: connection.readRequests(1)[0]))
          // Two pipelined requests read; the first is answered with a close, the second never.
          let paths = connection.readRequests(2)
          connection.write(Self.reply(to: paths[0], "Connection: close\r\n"))
          return
        }
        connection.write(Self.reply(to: connection.readRequests(1)[0]))
        connection.readUntilClosed()
      })
    defer { server.stop() }
    let transport = SocketTransport(maximumConnectionsPerOrigin: 1)
    #expect(try await Self.body(transport, server, "/first") == "/first")
    let one = Task { try await Self.body(transport, server, "/one") }
    await waitUntil("the first request to arrive") { server.received.count == 2 }
    let two = Task { try await Self.body(transport, server, "/two") }
    #expect(try await one.value == "/one")
    #expect(try await two.value == "/two")
    #expect(server.received == ["/first", "/one", "/two", "/two"])
    #expect(transport.statistics.connectionsOpened == 2)
  }

  /// The server holds the reply to a GET; a second request must wait for it rather than be
  /// pipelined, and goes out on the same connection after it.
  func expectNotPipelined(
    _ second: TransportRequest, firstReplyVersion: String = "HTTP/1.1",
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let answer = DispatchSemaphore(value: 0)
    let early = Mutex(false)
    let version = firstReplyVersion
    let server = try #require(
      ScriptedServer { _, connection in
        func reply(_ path: String) -> [UInt8] {
          Array(
            "\(version) 200 OK\r\nConnection: keep-alive\r\nContent-Length: \(path.utf8.count)\r\n\r\n\(path)"
              .utf8)
        }
        connection.write(reply(connection.readRequests(1)[0]))
        let held = connection.readRequests(1)[0]
        answer.wait()
        early.withLock { $0 = connection.hasUnreadBytes }
        connection.write(reply(held))
        connection.write(reply(connection.readRequests(1)[0]))
        connection.readUntilClosed()
      })
    defer { server.stop() }
    var second = second
    second.url = server.url + second.url
    let request = second
    let transport = SocketTransport(maximumConnectionsPerOrigin: 1)
    #expect(
      try await Self.body(transport, server, "/first") == "/first", sourceLocation: sourceLocation)
    let held = Task { try await Self.body(transport, server, "/held") }
    await waitUntil("the held request to arrive") { server.received.count == 2 }
    let waiting = Task { try await transport.send(request) }
    await waitUntil("the second request to wait") {
      await transport.waitingCount(server.url) == 1
    }
    answer.signal()
    #expect(try await held.value == "/held", sourceLocation: sourceLocation)
    let reply = try await waiting.value
    #expect(reply.status == 200, sourceLocation: sourceLocation)
    #expect(!early.withLock { $0 }, "sent before the reply", sourceLocation: sourceLocation)
    #expect(transport.statistics.requestsPipelined == 0, sourceLocation: sourceLocation)
    #expect(transport.statistics.connectionsOpened == 1, sourceLocation: sourceLocation)
  }

  @Test func aPOSTIsNeverPipelined() async throws {
    var post = TransportRequest(url: "/post", idleTimeout: 60, totalTimeout: 60)
    post.method = "POST"
    post.body = Array("a=1".utf8)
    try await expectNotPipelined(post)
  }

  @Test func anHTTP10ServerGetsNoPipelining() async throws {
    try await expectNotPipelined(
      TransportRequest(url: "/second", idleTimeout: 60, totalTimeout: 60),
      firstReplyVersion: "HTTP/1.0")
  }

  @Test func cancellingAPipelinedRequestLeavesTheOthersTheirOwnReplies() async throws {
    let answer = DispatchSemaphore(value: 0)
    let server = try #require(
      ScriptedServer { _, connection in
        connection.write(Self.reply(to: connection.readRequests(1)[0]))
        let paths = connection.readRequests(3)
        answer.wait()
        connection.write(paths.flatMap { Self.reply(to: $0) })
        connection.write(Self.reply(to: connection.readRequests(1)[0]))
        connection.readUntilClosed()
      })
    defer { server.stop() }
    let transport = SocketTransport(maximumConnectionsPerOrigin: 1)
    #expect(try await Self.body(transport, server, "/first") == "/first")
    var tasks: [Task<String, any Error>] = []
    for (count, path) in [(2, "/one"), (3, "/two"), (4, "/three")] {
      tasks.append(Task { try await Self.body(transport, server, path) })
      await waitUntil("request \(count) to arrive") { server.received.count == count }
    }
    // The middle one, on the wire behind the first: its reply still comes and is dropped.
    tasks[1].cancel()
    await #expect(throws: TransportError.cancelled) { try await tasks[1].value }
    answer.signal()
    #expect(try await tasks[0].value == "/one")
    #expect(try await tasks[2].value == "/three")
    // The connection goes on: the next request gets its own reply on it.
    #expect(try await Self.body(transport, server, "/four") == "/four")
    #expect(transport.statistics.connectionsOpened == 1)
  }

  @Test func aReplySplitAnywhereWithTheNextBehindItReachesBothCallers() async throws {
    let total = Self.reply(to: "/one").count + Self.reply(to: "/two").count
    let firstLength = Self.reply(to: "/one").count
    let split = Mutex(0)
    let next = DispatchSemaphore(value: 0)
    let server = try #require(
      ScriptedServer { _, connection in
        connection.write(Self.reply(to: connection.readRequests(1)[0]))
        for at in 1..<total {
          let paths = connection.readRequests(2)
          let bytes = paths.flatMap { Self.reply(to: $0) }
          split.withLock { $0 = at }
          connection.write(Array(bytes[..<at]))
          // When the first part holds the whole first reply, the rest waits until that reply
          // reached its caller: the next reply's start was handed over from the same read.
          if at >= firstLength { next.wait() }
          connection.write(Array(bytes[at...]))
        }
        connection.readUntilClosed()
      })
    defer { server.stop() }
    let transport = SocketTransport(maximumConnectionsPerOrigin: 1)
    #expect(try await Self.body(transport, server, "/first") == "/first")
    for at in 1..<total {
      let one = Task { try await Self.body(transport, server, "/one") }
      await waitUntil("the first request of round \(at)") {
        server.received.count == 2 * at
      }
      let two = Task { try await Self.body(transport, server, "/two") }
      #expect(try await one.value == "/one", "split at \(at)")
      if at >= firstLength { next.signal() }
      #expect(try await two.value == "/two", "split at \(at)")
    }
    #expect(split.withLock { $0 } == total - 1)
    #expect(transport.statistics.connectionsOpened == 1)
    #expect(transport.statistics.requestsPipelined == total - 1)
  }
}

/// A server on 127.0.0.1 (port 0) that runs `script` on a thread of its own for each connection
/// it accepts (numbered from 0), on blocking sockets, and closes the connection when the script
/// returns.
final class ScriptedServer: Sendable {
  let port: UInt16
  private let listener: Int32
  private let paths = PathList()

  private final class PathList: Sendable {
    let paths = Mutex<[String]>([])
  }

  init?(script: @escaping @Sendable (_ index: Int, _ connection: ScriptedConnection) -> Void) {
    guard let (fd, port) = loopbackSocket() else { return nil }
    self.port = UInt16(port)
    listener = fd
    let paths = paths
    Thread {
      var index = 0
      while true {
        let client = accept(fd, nil, nil)
        guard client >= 0 else {
          close(fd)
          return
        }
        let connection = ScriptedConnection(fd: client) { path in
          paths.paths.withLock { $0.append(path) }
        }
        let number = index
        index += 1
        Thread {
          script(number, connection)
          close(client)
        }.start()
      }
    }.start()
  }

  /// Stops accepting (the accept loop closes the listener).
  func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

  var url: String { "http://127.0.0.1:\(port)" }

  /// The targets of the requests read so far, in order.
  var received: [String] { paths.paths.withLock { $0 } }
}

/// One accepted connection of a `ScriptedServer`, read and written blocking.
final class ScriptedConnection: @unchecked Sendable {
  let fd: Int32
  private var buffer: [UInt8] = []
  private let record: @Sendable (String) -> Void

  init(fd: Int32, record: @escaping @Sendable (String) -> Void) {
    self.fd = fd
    self.record = record
    // A script waiting for bytes that never come ends rather than hanging the run.
    var limit = timeval(tv_sec: hangLimitSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
  }

  /// Reads the next `count` requests (their bodies skipped): their targets, in order.
  func readRequests(_ count: Int) -> [String] {
    var targets: [String] = []
    while targets.count < count {
      if let target = takeRequest() {
        record(target)
        targets.append(target)
      } else if !readMore() {
        return targets
      }
    }
    return targets
  }

  /// Whether the client sent bytes not read yet (a look that does not wait).
  var hasUnreadBytes: Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return !buffer.isEmpty || poll(&entry, 1, 0) > 0
  }

  func write(_ bytes: [UInt8]) {
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard n > 0 else { return }
      sent += n
    }
  }

  /// Reads until the client closes the connection (or the read times out).
  func readUntilClosed() {
    while readMore() { buffer.removeAll() }
  }

  private func readMore() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 4096)
    let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    guard n > 0 else { return false }
    buffer += chunk[0..<n]
    return true
  }

  /// The next complete request's target, taken out of the buffer.
  private func takeRequest() -> String? {
    let end = Array("\r\n\r\n".utf8)
    guard let headEnd = buffer.indices.first(where: { buffer[$0...].starts(with: end) }) else {
      return nil
    }
    let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
    var length = 0
    for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
      length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
    }
    let requestEnd = headEnd + 4 + length
    guard buffer.count >= requestEnd else { return nil }
    buffer.removeFirst(requestEnd)
    return head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
  }
}
