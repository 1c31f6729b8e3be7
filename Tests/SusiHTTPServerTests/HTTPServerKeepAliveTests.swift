import SusiHTTPTesting
import SusiHTTPTypes
import Testing

@testable import SusiHTTPServer

@Suite struct HTTPServerKeepAliveTests {
  @Test func answersASimpleGet() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.status == 200)
      #expect(response.text == "GET /hello ")
      #expect(response.header("Content-Length") == "11")
      #expect(response.header("Connection") == nil)
      #expect(response.header("Date")?.hasSuffix(" GMT") == true)
    }
  }

  @Test func waitsForAHeadSentInFragments() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      for byte in Array("POST /frag HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok".utf8) {
        try client.send([byte])
      }
      #expect(try await client.readResponse().text == "POST /frag ok")
    }
  }

  @Test func reusesAConnectionForSeveralRequests() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      for index in 0..<5 {
        try client.send("POST /\(index) HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
        #expect(try await client.readResponse().text == "POST /\(index) abc")
      }
    }
  }

  @Test func answersPipelinedRequestsInOrder() async throws {
    // The first request waits before answering, so an out-of-order server would answer the
    // second one first.
    let handler = ClosureHandler { request in
      if request.target == "/slow" {
        for _ in 0..<100 { await Task.yield() }
      }
      return HTTPResponse(status: 200, contentType: "text/plain", body: request.target)
    }
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      let targets = ["/slow", "/2", "/3", "/slow", "/5"]
      try client.send(targets.map { "GET \($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
      var answered: [String] = []
      for _ in targets { answered.append(try await client.readResponse().text) }
      #expect(answered == targets)
    }
  }

  @Test func closesAfterConnectionClose() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.header("Connection") == "close")
      #expect(try await client.readsEndOfStream())
    }
  }

  @Test func closesHTTP10UnlessAskedToKeepAlive() async throws {
    try await withServer { _, port in
      let plain = try LoopbackHTTPClient(port: port)
      try plain.send("GET /old HTTP/1.0\r\n\r\n")
      #expect(try await plain.readResponse().header("Connection") == "close")
      #expect(try await plain.readsEndOfStream())

      let kept = try LoopbackHTTPClient(port: port)
      try kept.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
      #expect(try await kept.readResponse().header("Connection") == "keep-alive")
      try kept.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
      #expect(try await kept.readResponse().text == "GET /b ")
    }
  }

  @Test func answersHeadWithTheLengthButNoBody() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("HEAD /thing HTTP/1.1\r\nHost: x\r\n\r\n")
      let head = try await client.readResponse(toHead: true)
      #expect(head.status == 200)
      // The handler saw a GET, so the length is that of `GET /thing `.
      #expect(head.header("Content-Length") == "11")
      // A body sent by mistake would be read as the start of this response.
      try client.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await client.readResponse().text == "GET /next ")
    }
  }

  @Test func sends100ContinueBeforeTheBody() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send(
        "POST /up HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
      let interim = try await client.readHead()
      #expect(interim.status == 100)
      try client.send("data")
      let response = try await client.readResponse()
      #expect(response.status == 200)
      #expect(response.text == "POST /up data")
    }
  }

  @Test func refusesAnOversizedExpectedBodyWithoutContinue() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send(
        "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 99999999\r\n\r\n")
      #expect(try await client.readResponse().status == 413)
    }
  }

  @Test func answersAClientThatHalfClosed() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /last HTTP/1.1\r\nHost: x\r\n\r\n")
      client.shutdownWrite()
      let response = try await client.readResponse()
      #expect(response.text == "GET /last ")
      #expect(try await client.readsEndOfStream())
    }
  }

  @Test func decodesAChunkedRequestBody() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send(
        "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")
      try client.send("4;ext=1\r\ndefg\r\n0\r\nX-Trailer: t\r\n\r\n")
      #expect(try await client.readResponse().text == "POST /c abcdefg")
    }
  }

  @Test func sendsALargeResponseToAClientThatReadsLater() async throws {
    let big = [UInt8](repeating: UInt8(ascii: "z"), count: 8 * 1024 * 1024)
    let handler = ClosureHandler { _ in HTTPResponse(status: 200, body: big) }
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /big HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await client.readResponse().body == big)
      #expect(try await client.readResponse().body.count == big.count)
    }
  }

  @Test func passesTheRemoteAddressAndHeaders() async throws {
    let handler = ClosureHandler { request in
      HTTPResponse(
        status: 201, headers: ["X-Echo": request.headers["x-in"] ?? "", "Content-Length": "999"],
        body: Array(request.remoteAddress.utf8))
    }
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET / HTTP/1.1\r\nHost: x\r\nX-In: hi\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.status == 201)
      #expect(response.text == "127.0.0.1")
      #expect(response.header("X-Echo") == "hi")
      #expect(response.header("Content-Length") == "9")
    }
  }

  @Test func dropsResponseHeadersThatWouldSplitTheResponse() async throws {
    let handler = ClosureHandler { _ in
      HTTPResponse(
        status: 200, headers: ["X-Bad": "a\r\nSet-Cookie: evil=1", "X-Good": "ok"], body: [])
    }
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.header("Set-Cookie") == nil)
      #expect(response.header("X-Bad") == nil)
      #expect(response.header("X-Good") == "ok")
    }
  }
}
