import Glibc
import SusiClock
import SusiHTTPTesting
import Testing

@testable import SusiHTTPServer

@Suite struct HTTPServerShutdownTests {
  @Test func finishesAnInFlightRequestAndClosesIdleConnections() async throws {
    let gate = Gate()
    let handler = ClosureHandler { request in
      if request.target == "/slow" { await gate.wait() }
      return HTTPResponse(status: 200, contentType: "text/plain", body: "done \(request.target)")
    }
    let server = HTTPServer(
      configuration: .init(eventLoopCount: 1, clock: ManualTimeSource()), handler: handler)
    let port = try server.start()
    let listener = listeningSocketInodes(port: port)
    #expect(listener.count == 1)
    let idle = try LoopbackHTTPClient(port: port)
    try idle.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(try await idle.readResponse().text == "done /first")
    let busy = try LoopbackHTTPClient(port: port)
    try busy.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
    await gate.arrived()

    async let stopped: Void = server.shutdown()
    // The idle connection closing shows the shutdown has begun; only then may the slow
    // request finish.
    #expect(try await idle.readsEndOfStream())
    // The listener is closed (a connection attempt could reach another test's server that
    // took the freed port meanwhile; the socket's inode cannot be taken over).
    #expect(listeningSocketInodes(port: port).isDisjoint(with: listener))
    await gate.open()
    let response = try await busy.readResponse()
    #expect(response.text == "done /slow")
    #expect(response.header("Connection") == "close")
    #expect(try await busy.readsEndOfStream())
    await stopped
  }

  @Test func endsAStreamCleanly() async throws {
    let outcome = Outcome()
    let handler = ClosureHandler { _ in
      HTTPResponse(status: 200) { body in
        try await body.write("id: 1\ndata: first\n\n")
        await outcome.record("sent")
        do {
          try await Task.sleep(for: .seconds(3600))
        } catch {
          await outcome.record("cancelled")
        }
      }
    }
    let server = HTTPServer(configuration: .init(clock: ManualTimeSource()), handler: handler)
    let port = try server.start()
    let client = try LoopbackHTTPClient(port: port)
    try client.send("GET /events/stream HTTP/1.1\r\nHost: x\r\n\r\n")
    _ = try await client.readHead()
    #expect(try await client.readChunk() == Array("id: 1\ndata: first\n\n".utf8))
    #expect(await outcome.next() == "sent")
    await server.shutdown()
    #expect(try await client.readChunk() == nil)
    #expect(try await client.readsEndOfStream())
    #expect(await outcome.next() == "cancelled")
  }

  @Test func closesWhatIsLeftWhenTheGracePeriodEnds() async throws {
    let handler = ClosureHandler { _ in
      try? await Task.sleep(for: .seconds(3600))
      return HTTPResponse(status: 200)
    }
    let configuration = HTTPServer.Configuration(timeouts: HTTPTimeouts(shutdownGrace: .zero))
    let server = HTTPServer(configuration: configuration, handler: handler)
    let port = try server.start()
    let client = try LoopbackHTTPClient(port: port)
    try client.send("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
    await server.shutdown()
    #expect(try await client.readsEndOfStream())
  }

  @Test func refusesNewConnectionsAfterShutdown() async throws {
    let server = HTTPServer(configuration: .init(clock: ManualTimeSource()), handler: echoHandler)
    let port = try server.start()
    let listener = listeningSocketInodes(port: port)
    #expect(listener.count == 1)
    await server.shutdown()
    // Its listening socket is gone. (A connection attempt could not show it: another test's
    // server may take the freed port meanwhile; the socket's inode cannot be taken over.)
    #expect(listeningSocketInodes(port: port).isDisjoint(with: listener))
  }

  @Test func startsOnlyOnce() async throws {
    let server = HTTPServer(configuration: .init(clock: ManualTimeSource()), handler: echoHandler)
    try server.start()
    #expect(throws: HTTPServerError.self) { try server.start() }
    await server.shutdown()
  }

  @Test func reportsAnUnusableAddress() {
    let server = HTTPServer(configuration: .init(host: "not-an-address"), handler: echoHandler)
    #expect(
      throws: HTTPServerError(
        code: .invalidAddress, message: "host \"not-an-address\" is not an IPv4 or IPv6 address")
    ) {
      try server.start()
    }
  }

  @Test func reportsAPortInUse() async throws {
    let first = HTTPServer(configuration: .init(clock: ManualTimeSource()), handler: echoHandler)
    let port = try first.start()
    let second = HTTPServer(configuration: .init(port: port), handler: echoHandler)
    #expect(throws: HTTPServerError.self) { try second.start() }
    await first.shutdown()
  }
}
