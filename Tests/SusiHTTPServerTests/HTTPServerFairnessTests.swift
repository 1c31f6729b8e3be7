import SusiClock
import SusiHTTPTesting
import Testing

@testable import SusiHTTPServer

/// Limits that keep one client from taking the server: the head deadline is a total, one
/// address gets only its share of the connections, and the last slots are kept for requests
/// the handler calls priority.
@Suite struct HTTPServerFairnessTests {
  @Test func cutsAHeadDrippedOneBytePerSecondAtTheHeadDeadline() async throws {
    let clock = ManualTimeSource()
    try await withServer(HTTPServer.Configuration(clock: clock)) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      let head = Array(
        "GET /drip HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "a", count: 40))\r\n".utf8)
      // A byte every second keeps the connection busy, but never buys more time.
      for second in 0..<10 {
        try client.send([head[second]])
        await clock.advance(by: .seconds(1))
      }
      let response = try await client.readResponse()
      #expect(response.status == 408)
      #expect(try await client.readsEndOfStream())
    }
  }

  @Test func oneAddressGetsOnlyItsShareOfTheConnections() async throws {
    let configuration = HTTPServer.Configuration(
      limits: HTTPLimits(maxConnections: 8, maxConnectionsPerAddress: 3), eventLoopCount: 2,
      clock: ManualTimeSource())
    #expect(HTTPLimits().maxConnectionsPerAddress == 128)
    try await withServer(configuration) { server, port in
      var held: [LoopbackHTTPClient] = []
      for index in 0..<3 {
        let client = try LoopbackHTTPClient(port: port, from: "127.0.0.2")
        try client.send("GET /\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await client.readResponse().status == 200)
        held.append(client)
      }
      let refused = try LoopbackHTTPClient(port: port, from: "127.0.0.2")
      let response = try await refused.readResponse()
      #expect(response.status == 503)
      #expect(response.header("Retry-After") == "1")
      // Another address is still served.
      let other = try LoopbackHTTPClient(port: port, from: "127.0.0.3")
      try other.send("GET /other HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await other.readResponse().text == "GET /other ")
      #expect(server.openConnectionCount == 4)
    }
  }

  @Test func servesOnlyPriorityRequestsOnReserveConnections() async throws {
    struct Handler: HTTPHandler {
      func handle(_ request: HTTPRequest) async -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "text/plain", body: "ok \(request.path)")
      }
      func isPriority(_ request: HTTPRequest) -> Bool { request.path == "/healthz" }
    }
    let configuration = HTTPServer.Configuration(
      limits: HTTPLimits(maxConnections: 6, reservedConnections: 2), eventLoopCount: 1,
      clock: ManualTimeSource())
    #expect(HTTPLimits().reservedConnections == 16)
    try await withServer(configuration, handler: Handler()) { _, port in
      var held: [LoopbackHTTPClient] = []
      for index in 0..<4 {
        let client = try LoopbackHTTPClient(port: port)
        try client.send("GET /\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await client.readResponse().status == 200)
        held.append(client)
      }
      // Slot 5 of 6 is in the reserve: ordinary requests are turned away, unread.
      let busy = try LoopbackHTTPClient(port: port)
      try busy.send("POST /actions HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
      let refused = try await busy.readResponse()
      #expect(refused.status == 503)
      #expect(refused.header("Retry-After") == "1")
      #expect(try await busy.readsEndOfStream())
      // A health check still gets through, and may keep its connection.
      let health = try LoopbackHTTPClient(port: port)
      try health.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await health.readResponse().text == "ok /healthz")
      try health.send("HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await health.readResponse(toHead: true).status == 200)
      try health.send("GET /other HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await health.readResponse().status == 503)
    }
  }

  @Test func connectionsThatNeverSendARequestCannotKeepPriorityRequestsOut() async throws {
    struct Handler: HTTPHandler {
      func handle(_ request: HTTPRequest) async -> HTTPResponse {
        HTTPResponse(status: 200, contentType: "text/plain", body: "ok \(request.path)")
      }
      func isPriority(_ request: HTTPRequest) -> Bool { request.path == "/healthz" }
    }
    let configuration = HTTPServer.Configuration(
      limits: HTTPLimits(maxConnections: 6, reservedConnections: 2), eventLoopCount: 2,
      clock: ManualTimeSource())
    try await withServer(configuration, handler: Handler()) { server, port in
      var held: [LoopbackHTTPClient] = []
      for index in 0..<4 {
        let client = try LoopbackHTTPClient(port: port)
        try client.send("GET /\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await client.readResponse().status == 200)
        held.append(client)
      }
      // Two connections that never send a byte take the reserve: the server is full.
      let silent = [try LoopbackHTTPClient(port: port), try LoopbackHTTPClient(port: port)]
      let deadline = ContinuousClock.now + .seconds(hangLimitSeconds)
      while server.openConnectionCount < 6 && ContinuousClock.now < deadline { await Task.yield() }
      #expect(server.openConnectionCount == 6, "both silent connections are open")
      // A health check still gets in: the oldest silent connection gives up its slot.
      let health = try LoopbackHTTPClient(port: port)
      try health.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await health.readResponse().text == "ok /healthz")
      #expect(try await silent[0].readsEndOfStream())
      // Once it showed a priority request, its slot is its own: a newer silent connection
      // takes the other silent one's slot, and the health check goes on.
      let later = try LoopbackHTTPClient(port: port)
      #expect(try await silent[1].readsEndOfStream())
      try health.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await health.readResponse().text == "ok /healthz")
      // Regular connections are never taken: with no unproven reserve slot left but the new
      // one's, the server is full for an ordinary request too.
      #expect(server.openConnectionCount == 6)
      withExtendedLifetime((held, later)) {}
    }
  }
}
