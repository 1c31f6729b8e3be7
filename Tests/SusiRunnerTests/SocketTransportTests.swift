import Foundation
import SusiClock
import SusiCore
import SusiHTTPServer
import SusiHTTPTesting
import SusiHTTPTypes
import SusiTesting
import Synchronization
import Testing

@testable import SusiHTTPClient
@testable import SusiRunner

#if canImport(Glibc)
  import Glibc
#endif

/// Our HTTP/1.1 client against loopback servers, beyond what every transport does
/// (`TransportContractTests`): chunked bodies, interim replies, the redirect bound, header
/// smuggling, keep-alive, the pool bound, timeouts, cancellation and the CPU a wait costs.
@Suite(.hangLimit)
struct SocketTransportTests {
  /// The contract's routes, and the ones only these tests use.
  static func server() throws -> LoopbackServer {
    try TransportContractTests.server { path in
      switch path {
      case "/chunked":
        .bytes(
          Array(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n6;x=1\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nTrailer: yes\r\n\r\n"
              .utf8))
      case "/continue":
        .bytes(
          Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
            + Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi".utf8))
      case "/loop": LoopbackServer.reply(302, ["Location: /loop"])
      default: nil
      }
    }
  }

  static func request(
    _ server: LoopbackServer, _ path: String, _ change: (inout TransportRequest) -> Void = { _ in }
  ) -> TransportRequest {
    TransportContractTests.request(server, path, change)
  }

  @Test func aFormBodyIsSentWithItsHostAndLength() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let request = Self.request(server, "/ok") {
      $0.method = "POST"
      $0.headers = ["Content-Type": "application/x-www-form-urlencoded"]
      $0.body = Array("login=a%40b.example&password=pw".utf8)
    }
    _ = try await SocketTransport().send(request)
    let received = try #require(server.requests.first)
    #expect(received.hasPrefix("POST /ok HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"))
    #expect(received.contains("\r\nContent-Length: 31\r\n"))
  }

  @Test func chunkedBodiesAndInterimRepliesAreRead() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let transport = SocketTransport()
    let chunked = try await transport.send(Self.request(server, "/chunked"))
    #expect(String(decoding: chunked.body, as: UTF8.self) == "Wikipedia in \r\n\r\nchunks.")
    let interim = try await transport.send(Self.request(server, "/continue"))
    #expect(interim.status == 200)
    #expect(interim.body == Array("hi".utf8))
  }

  @Test func aChunkedBodyOverTheLimitIsRefused() async throws {
    let server = try Self.server()
    defer { server.stop() }
    await #expect(throws: TransportError.tooLarge(limit: 5)) {
      try await SocketTransport().send(Self.request(server, "/chunked") { $0.maximumBodyBytes = 5 })
    }
  }

  @Test func followedRedirectsEndAfterFive() async throws {
    let server = try Self.server()
    defer { server.stop() }
    await #expect(throws: TransportError.failed("more than 5 redirects")) {
      try await SocketTransport().send(Self.request(server, "/loop") { $0.followsRedirects = true })
    }
  }

  @Test func aSilentServerTimesOutAfterTheIdleTimeout() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let start = ContinuousClock.now
    await #expect(throws: TransportError.timedOut) {
      try await SocketTransport().send(Self.request(server, "/silent") { $0.idleTimeout = 0.2 })
    }
    let waited = ContinuousClock.now - start
    #expect(waited >= .milliseconds(200) && waited < .seconds(hangLimitSeconds))
  }

  @Test func cancellingTheTaskStopsTheRequestAndFreesTheSlot() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let transport = SocketTransport(maximumConnectionsPerOrigin: 1)
    let task = Task { try await transport.send(Self.request(server, "/silent")) }
    await waitUntil("the request to arrive") { !server.requests.isEmpty }
    task.cancel()
    await #expect(throws: TransportError.cancelled) { try await task.value }
    let next = try await transport.send(Self.request(server, "/ok"))
    #expect(next.status == 200)
  }

  @Test func onlyHTTPURLsAreRequested() async {
    for url in ["file:///etc/passwd", "http://", "http://a b/", "http://host:99999/"] {
      await #expect(throws: TransportError.invalidURL("not an absolute http(s) URL")) {
        try await SocketTransport().send(TransportRequest(url: url))
      }
    }
  }

  @Test func headersCannotSmuggleLines() async throws {
    let server = try Self.server()
    defer { server.stop() }
    await #expect(throws: TransportError.invalidURL("the header X holds a line break")) {
      try await SocketTransport().send(
        Self.request(server, "/ok") { $0.headers = ["X": "a\r\nHost: evil"] })
    }
  }

  // MARK: Keep-alive and the pool

  /// An HTTP server that keeps connections alive, counts requests, and holds replies while
  /// `gate` is closed.
  final class KeepAliveServer: HTTPHandler {
    let requests = Mutex(0)
    let gate = Gate()
    let server: HTTPServer
    let port: Int

    init() throws {
      let box = HandlerBox()
      // Its timeouts on a clock that never moves: a busy machine must not see the server close
      // a kept connection between requests, or before the test counts them.
      server = HTTPServer(
        configuration: HTTPServer.Configuration(clock: ManualTimeSource()), handler: box)
      port = try server.start()
      box.target.withLock { $0 = self }
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
      requests.withLock { $0 += 1 }
      await gate.pass()
      return HTTPResponse(status: 200, contentType: "text/plain", body: "ok")
    }

    var url: String { "http://127.0.0.1:\(port)/x" }
    /// Connections the server holds open.
    var connections: Int { server.openConnectionCount }

    /// Forwards to the server object, which exists only after its HTTP server does.
    final class HandlerBox: HTTPHandler {
      let target = Mutex<KeepAliveServer?>(nil)

      func handle(_ request: HTTPRequest) async -> HTTPResponse {
        guard let target = target.withLock({ $0 }) else { return HTTPResponse(status: 503) }
        return await target.handle(request)
      }
    }
  }

  /// Holds callers while closed; opening lets them all through.
  final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((true, []))

    func close() { state.withLock { $0.open = false } }

    func open() {
      let waiting = state.withLock { state in
        state.open = true
        defer { state.waiting = [] }
        return state.waiting
      }
      for waiter in waiting { waiter.resume() }
    }

    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func pass() async {
      await withCheckedContinuation { continuation in
        let open = state.withLock { state in
          if !state.open { state.waiting.append(continuation) }
          return state.open
        }
        if open { continuation.resume() }
      }
    }
  }

  @Test func sequentialRequestsReuseOneKeptConnection() async throws {
    let server = try KeepAliveServer()
    defer { Task { await server.server.shutdown() } }
    let transport = SocketTransport()
    for _ in 0..<5 {
      let response = try await transport.send(TransportRequest(url: server.url))
      #expect(response.status == 200)
    }
    #expect(server.requests.withLock { $0 } == 5)
    #expect(server.connections == 1)
    #expect(await transport.connectionCounts(server.url) == (open: 1, idle: 1))
  }

  @Test func concurrentRequestsStayWithinThePoolBound() async throws {
    let server = try KeepAliveServer()
    defer { Task { await server.server.shutdown() } }
    let transport = SocketTransport(maximumConnectionsPerOrigin: 2)
    server.gate.close()
    let requests = (0..<6).map { _ in
      Task { try await transport.send(TransportRequest(url: server.url)) }
    }
    // Two requests reach the server; the other four wait for a connection.
    await waitUntil("two requests at the gate") { server.gate.waitingCount >= 2 }
    #expect(await transport.connectionCounts(server.url) == (open: 2, idle: 0))
    server.gate.open()
    for request in requests { #expect(try await request.value.status == 200) }
    #expect(server.requests.withLock { $0 } == 6)
    #expect(server.connections == 2)
    #expect(await transport.connectionCounts(server.url) == (open: 2, idle: 2))
  }

  @Test func aKeptConnectionTheServerClosedIsReplacedOnce() async throws {
    // LoopbackServer closes every connection after its reply, though it does not say so.
    let server = try #require(
      LoopbackServer { _ in .bytes(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)) })
    defer { server.stop() }
    let transport = SocketTransport()
    for _ in 0..<3 {
      let response = try await transport.send(TransportRequest(url: server.baseURL + "/x"))
      #expect(response.body == Array("ok".utf8))
    }
    #expect(server.requests.count == 3)
  }

  @Test func anIdleConnectionTheServerClosesLeavesThePoolAtOnce() async throws {
    // LoopbackServer closes every connection after its reply: the kept one is watched while
    // idle, so it leaves the pool without waiting for the next request to find it closed.
    let server = try #require(
      LoopbackServer { _ in .bytes(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)) })
    defer { server.stop() }
    let transport = SocketTransport()
    let url = server.baseURL + "/x"
    #expect(try await transport.send(TransportRequest(url: url)).status == 200)
    await waitUntil("the closed connection to leave the pool") {
      await transport.connectionCounts(url) == (open: 0, idle: 0)
    }
  }

  @Test func theTotalTimeoutCountsTheWaitForAConnection() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let transport = SocketTransport(maximumConnectionsPerOrigin: 1)
    // The only connection is taken by a request the server never answers.
    let holder = Task { try await transport.send(Self.request(server, "/silent")) }
    defer { holder.cancel() }
    await waitUntil("the first request to arrive") { !server.requests.isEmpty }
    let start = ContinuousClock.now
    await #expect(throws: TransportError.timedOut) {
      try await transport.send(Self.request(server, "/ok") { $0.totalTimeout = 0.3 })
    }
    #expect(ContinuousClock.now - start < .seconds(hangLimitSeconds))
  }

  // MARK: Time and CPU

  @Test func theRunnersDeadlineOnAnInjectedClockEndsTheExchange() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let clock = ManualTimeSource()
    let transport = SocketTransport(maximumConnectionsPerOrigin: 1)
    let sender = RequestSender(
      transport: transport, clock: clock, random: RandomSource(seed: 1), policy: .never,
      pacer: PathPacer(gap: 0))
    let request = Self.request(server, "/silent") { $0.totalTimeout = 30 }
    let outcome = Task { () -> RunnerFailure? in
      do throws(RunnerFailure) {
        _ = try await sender.send(request, idempotent: true, place: "/silent")
        return nil
      } catch { return error }
    }
    await clock.waitForSleepers(count: 1)
    await waitUntil("the request to arrive") { !server.requests.isEmpty }
    await clock.advance(by: .milliseconds(30_000))
    #expect(await outcome.value?.kind == .timeout)
    // The exchange was stopped, so its connection slot is free again.
    #expect(try await transport.send(Self.request(server, "/ok")).status == 200)
  }

  /// The one timed wait: a server that accepts and never answers, waited on for 2 s, must cost
  /// the client's event loop thread (where all waiting and I/O happen) next to no CPU.
  @Test func waitingTwoSecondsOnASilentServerCostsNextToNoCPU() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let transport = SocketTransport()
    // The loop thread starts with the first request: this one opens it.
    _ = try await transport.send(Self.request(server, "/ok"))
    let cpu = transport.loopCPUSeconds
    let start = ContinuousClock.now
    await #expect(throws: TransportError.timedOut) {
      try await transport.send(
        Self.request(server, "/silent") {
          $0.idleTimeout = 2
          $0.totalTimeout = 2
        })
    }
    let elapsed = (ContinuousClock.now - start) / .seconds(1)
    let used = transport.loopCPUSeconds - cpu
    #expect(elapsed >= 1.9)
    #expect(used < 0.05, "waiting cost \(used) s of CPU")
  }

  /// Many requests at once share the one event loop thread: a hundred exchanges held by the
  /// server add no thread each to the client, and all complete when the server answers.
  @Test func aHundredWaitingRequestsShareOneLoopThread() async throws {
    let server = try KeepAliveServer()
    defer { Task { await server.server.shutdown() } }
    let transport = SocketTransport(maximumConnectionsPerOrigin: 100)
    _ = try await transport.send(TransportRequest(url: server.url))
    let threadsBefore = Self.threadCount()
    server.gate.close()
    let requests = (0..<100).map { _ in
      Task { try await transport.send(TransportRequest(url: server.url)) }
    }
    await waitUntil("a hundred requests at the gate") { server.gate.waitingCount >= 100 }
    // Other tests run meanwhile and start threads of their own for a while (a busy machine
    // keeps them longer), so one count can be high by chance; a thread per exchange would add
    // a hundred for as long as the exchanges are held, so the count never comes down.
    var threadsDuring = Self.threadCount()
    await waitUntil("fewer than 50 threads more than before the requests") {
      threadsDuring = Self.threadCount()
      return threadsDuring - threadsBefore < 50
    }
    #expect(threadsDuring - threadsBefore < 50, "\(threadsBefore) -> \(threadsDuring) threads")
    #expect(await transport.connectionCounts(server.url) == (open: 100, idle: 0))
    server.gate.open()
    for request in requests { #expect(try await request.value.status == 200) }
    #expect(await transport.connectionCounts(server.url) == (open: 100, idle: 100))
  }

  /// A task that prefers the transport runs on the client's loop thread and goes on there after
  /// the reply: handling a reply wakes no other thread.
  @Test func aTaskPreferringTheTransportGoesOnOnItsLoopThreadAfterAReply() async throws {
    let server = try KeepAliveServer()
    defer { Task { await server.server.shutdown() } }
    let transport = SocketTransport()
    let loop = try #require(transport.preferredTaskExecutor as? ClientLoop)
    let (before, after, status) = try await Task(executorPreference: loop) {
      let before = loop.isLoopThread
      let response = try await transport.send(TransportRequest(url: server.url))
      return (before, loop.isLoopThread, response.status)
    }.value
    #expect(before)
    #expect(after)
    #expect(status == 200)
  }

  /// Work for a loop that has stopped (its transport is gone) still runs.
  @Test func aTaskPreferringAStoppedLoopStillRuns() async throws {
    let loop = try ClientLoop()
    loop.stop()
    let value = await Task(executorPreference: loop) { 42 }.value
    #expect(value == 42)
  }

  /// A reply is read once the loop says it arrived, not tried right after the request went out.
  @Test func aKeptConnectionReadsOnlyWhenTheReplyHasArrived() async throws {
    let server = try KeepAliveServer()
    defer { Task { await server.server.shutdown() } }
    let transport = SocketTransport()
    for _ in 0..<5 {
      #expect(try await transport.send(TransportRequest(url: server.url)).status == 200)
    }
    #expect(server.connections == 1)
    #expect(transport.statistics.emptyReads == 0)
  }

  /// The threads of this process.
  static func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
  }
}
