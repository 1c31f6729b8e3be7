import Testing

@testable import SusiHTTP

@Suite struct HTTPServerKeepAliveTests {
  @Test func answersASimpleGet() async throws {
    try await withServer { _, port in
      let client = try RawClient(port: port)
      try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
      let response = try client.readResponse()
      #expect(response.status == 200)
      #expect(response.text == "GET /hello ")
      #expect(response.header("Connection") == nil)
      #expect(response.header("Date") != nil)
    }
  }
}
