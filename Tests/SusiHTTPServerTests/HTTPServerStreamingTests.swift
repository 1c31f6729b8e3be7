import SusiHTTPTesting
import SusiHTTPTypes
import Testing

@testable import SusiHTTPServer

@Suite struct HTTPServerStreamingTests {
  @Test func streamsAChunkedBodyAndKeepsTheConnection() async throws {
    let handler = ClosureHandler { _ in
      HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"]) { body in
        try await body.write("a")
        try await body.write([])  // Empty writes must not end the body early.
        try await body.write("bb")
        try await body.write("ccc")
      }
    }
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.status == 200)
      #expect(response.header("Transfer-Encoding") == "chunked")
      #expect(response.header("Content-Length") == nil)
      #expect(response.chunkSizes == [1, 2, 3])
      #expect(response.text == "abbccc")
      try client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await client.readResponse().text == "abbccc")
    }
  }

  @Test func failsWritesOnceTheClientIsGone() async throws {
    let outcome = Outcome()
    let handler = ClosureHandler { _ in
      HTTPResponse(status: 200) { body in
        do {
          var seq = 0
          // Bounded, so a server that never notices the client leave fails the test instead
          // of spinning for ever.
          while seq < 5_000_000 {
            seq += 1
            try await body.write("id: \(seq)\ndata: tick\n\n")
            await Task.yield()
          }
          await outcome.record("never failed")
        } catch let error as HTTPStreamError {
          await outcome.record(error.code.rawValue)
          throw error
        }
      }
    }
    try await withServer(handler: handler) { _, port in
      do {
        let client = try LoopbackHTTPClient(port: port)
        try client.send("GET /events/stream HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try await client.readHead()
        _ = try await client.readChunk()
      }  // The client closes here.
      #expect(await outcome.next() == "closed")
    }
  }

  @Test func cancelsAProducerWaitingForEventsWhenTheClientLeaves() async throws {
    let outcome = Outcome()
    let handler = ClosureHandler { _ in
      HTTPResponse(status: 200) { body in
        try await body.write("data: hello\n\n")
        do {
          try await Task.sleep(for: .seconds(120))
          await outcome.record("not cancelled within 120 s")
        } catch {
          await outcome.record("cancelled")
        }
      }
    }
    try await withServer(handler: handler) { _, port in
      do {
        let client = try LoopbackHTTPClient(port: port)
        try client.send("GET /events/stream HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try await client.readHead()
        #expect(try await client.readChunk() == Array("data: hello\n\n".utf8))
      }
      #expect(await outcome.next() == "cancelled")
    }
  }

  @Test func cutsTheConnectionWhenTheProducerThrows() async throws {
    struct Broken: Error {}
    let handler = ClosureHandler { _ in
      HTTPResponse(status: 200) { body in
        try await body.write("partial")
        throw Broken()
      }
    }
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
      _ = try await client.readHead()
      #expect(try await client.readChunk() == Array("partial".utf8))
      await #expect(throws: LoopbackHTTPError.self) { try await client.readChunk() }
    }
  }

  @Test func streamsToAnHTTP10ClientUntilClose() async throws {
    let handler = ClosureHandler { _ in
      HTTPResponse(status: 200) { body in
        try await body.write("one ")
        try await body.write("two")
      }
    }
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET / HTTP/1.0\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.header("Transfer-Encoding") == nil)
      #expect(response.text == "one two")
    }
  }

  @Test func deliversALargeStreamIntact() async throws {
    let written = Outcome()
    let piece = [UInt8](repeating: UInt8(ascii: "p"), count: 64 * 1024)
    let handler = ClosureHandler { _ in
      HTTPResponse(status: 200) { body in
        for index in 0..<256 {
          try await body.write(piece)
          await written.record(String(index))
        }
      }
    }
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.body.count == 256 * piece.count)
      #expect(await written.count() == 256)
    }
  }
}

/// Collects what a handler reports, for the test to await.
actor Outcome {
  private var values: [String] = []
  private var waiters: [CheckedContinuation<String, Never>] = []

  func record(_ value: String) {
    if waiters.isEmpty {
      values.append(value)
    } else {
      waiters.removeFirst().resume(returning: value)
    }
  }

  func next() async -> String {
    if !values.isEmpty { return values.removeFirst() }
    return await withCheckedContinuation { waiters.append($0) }
  }

  func count() -> Int { values.count }
}
