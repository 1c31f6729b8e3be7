import SusiHTTPTesting
import Testing

@testable import SusiHTTPServer

@Suite struct HTTPServerSocketFuzzTests {
  /// Mutated requests over real sockets: each gets well-formed responses or a clean close, and
  /// the server keeps serving afterwards.
  @Test func survivesMutatedRequestsOverTheSocket() async throws {
    try await withServer { server, port in
      var mutator = RequestMutator(seed: 0xF00D, corpus: HTTPRequestParserFuzzTests.corpus)
      for _ in 0..<300 {
        let client = try LoopbackHTTPClient(port: port)
        try? client.send(mutator.next())
        // Half-closing means an incomplete request ends the exchange instead of waiting.
        client.shutdownWrite()
        while try await !client.readsEndOfStream() {
          let response = try await client.readResponse()
          #expect((100...599).contains(response.status))
        }
      }
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /still-alive HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await client.readResponse().text == "GET /still-alive ")
      #expect(server.openConnectionCount <= 2)
    }
  }
}
