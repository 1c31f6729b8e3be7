import SusiHTTPTesting
import Testing

@testable import SusiHTTPServer

/// The parser fixtures that must be refused, replayed over a real socket: each must get its
/// status, `Connection: close`, and then the end of the connection, even with a valid request
/// pipelined behind it (no resynchronisation).
let socketRejectionFixtures = parserFixtures.filter {
  if case .rejected = $0.expected.first { true } else { false }
}

@Suite struct HTTPServerRejectionTests {
  @Test(arguments: socketRejectionFixtures)
  func refusesOverTheSocketAndCloses(_ fixture: ParserFixture) async throws {
    guard case .rejected(let status) = fixture.expected.first else { return }
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send(fixture.raw + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.status == status)
      #expect(response.header("Connection") == "close")
      #expect(try await client.readsEndOfStream())
    }
  }

  @Test func answers414ForALongTarget() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await client.readResponse().status == 414)
      #expect(try await client.readsEndOfStream())
    }
  }

  @Test func answers431ForTooManyFields() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      let fields = (0..<101).map { "X-F\($0): v\r\n" }.joined()
      try client.send("GET / HTTP/1.1\r\nHost: x\r\n\(fields)\r\n")
      #expect(try await client.readResponse().status == 431)
      #expect(try await client.readsEndOfStream())
    }
  }

  @Test func answers431ForHeadersOver16KiB() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 17 * 1024))\r\n\r\n")
      #expect(try await client.readResponse().status == 431)
      #expect(try await client.readsEndOfStream())
    }
  }

  @Test func answers413ForABodyOver1MiBWithoutReadingIt() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(1024 * 1024 + 1)\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.status == 413)
      #expect(response.header("Connection") == "close")
      #expect(try await client.readsEndOfStream())
    }
  }

  @Test func acceptsABodyOfExactly1MiB() async throws {
    let sizeHandler = ClosureHandler { request in
      HTTPResponse(status: 200, contentType: "text/plain", body: "\(request.body.count)")
    }
    try await withServer(handler: sizeHandler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      let body = [UInt8](repeating: UInt8(ascii: "x"), count: 1024 * 1024)
      try client.send(
        Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
      let response = try await client.readResponse()
      #expect(response.status == 200)
      #expect(response.text == "1048576")
    }
  }

  @Test func answers413ForAChunkedBodyOver1MiB() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      let chunk = String(repeating: "c", count: 0x80000)
      try client.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
      for _ in 0..<3 { try? client.send("80000\r\n\(chunk)\r\n") }
      #expect(try await client.readResponse().status == 413)
    }
  }
}
