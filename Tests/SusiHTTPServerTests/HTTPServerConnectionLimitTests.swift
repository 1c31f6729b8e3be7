import SusiClock
import SusiHTTPTesting
import Testing

@testable import SusiHTTPServer

@Suite struct HTTPServerConnectionLimitTests {
  @Test func refusesConnectionsOverTheLimitWith503() async throws {
    let clock = ManualTimeSource()
    let configuration = HTTPServer.Configuration(
      limits: HTTPLimits(maxConnections: 4), eventLoopCount: 2, clock: clock)
    try await withServer(configuration) { server, port in
      var clients: [LoopbackHTTPClient] = []
      for index in 0..<4 {
        let client = try LoopbackHTTPClient(port: port)
        try client.send("GET /\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await client.readResponse().status == 200)
        clients.append(client)
      }
      let refused = try LoopbackHTTPClient(port: port)
      let response = try await refused.readResponse()
      #expect(response.status == 503)
      #expect(response.header("Connection") == "close")
      #expect(try await refused.readsEndOfStream())

      clients.removeLast()  // Closes one connection; once the server notices, a slot is free.
      // The loops see the close on their next turn; on a busy machine that may take more than
      // one settle, so settle until they have (`hangLimitSeconds` at most).
      let deadline = ContinuousClock.now + .seconds(hangLimitSeconds)
      while server.openConnectionCount != 3, ContinuousClock.now < deadline {
        await clock.advance(by: .zero)
        try await Task.sleep(for: .milliseconds(1))
      }
      #expect(server.openConnectionCount == 3)
      let next = try LoopbackHTTPClient(port: port)
      try next.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await next.readResponse().status == 200)
    }
  }

  @Test func servesOthersWhile64ClientsDripOneBytePerSecond() async throws {
    try await withServer { _, port in
      let request = Array("GET /drip HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
      var drippers: [LoopbackHTTPClient] = []
      for _ in 0..<64 {
        let client = try LoopbackHTTPClient(port: port)
        try client.send([request[0]])
        drippers.append(client)
      }
      // Each "second", every slow client sends one more byte, and a fast client is served in
      // between. A server that waited on any slow client would stall here.
      for second in 1..<4 {
        for client in drippers { try client.send([request[second]]) }
        let fast = try LoopbackHTTPClient(port: port)
        try fast.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await fast.readResponse().text == "GET /fast ")
      }
      // The slow clients were kept waiting, not dropped: each finishes and is answered.
      for client in drippers {
        try client.send(Array(request[4...]))
        #expect(try await client.readResponse().text == "GET /drip ")
      }
    }
  }
}
