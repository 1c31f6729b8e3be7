import SusiHTTPTesting
import SusiHTTPTypes
import Testing

@testable import SusiHTTPServer

/// Request forms every handler gets right without knowing of them: HEAD, the absolute-form
/// target, and repeated credentials.
@Suite struct HTTPServerRequestFormTests {
  /// Answers only GET, as a router with a method list does; anything else is a 405.
  static let getOnlyHandler = ClosureHandler { request in
    guard request.method == .get else { return HTTPResponse(status: 405) }
    return HTTPResponse(
      status: 200, contentType: "text/plain", body: "path \(request.path)")
  }

  @Test func answersHeadWhereverGetWorks() async throws {
    try await withServer(handler: Self.getOnlyHandler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /thing HTTP/1.1\r\nHost: x\r\n\r\n")
      let get = try await client.readResponse()
      try client.send("HEAD /thing HTTP/1.1\r\nHost: x\r\n\r\n")
      let head = try await client.readResponse(toHead: true)
      #expect(head.status == 200)
      #expect(head.header("Content-Length") == get.header("Content-Length"))
      #expect(head.header("Content-Type") == "text/plain")
      // A body sent by mistake would be read as the start of this response.
      try client.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await client.readResponse().text == "path /next")
    }
  }

  @Test func routesAnAbsoluteFormTargetByItsPath() async throws {
    let handler = ClosureHandler { request in
      HTTPResponse(
        status: 200, contentType: "text/plain",
        body: "\(request.target) \(request.headers["Host"] ?? "-")")
    }
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send(
        "GET http://127.0.0.1:4000/cms/getGroups.json?a=b HTTP/1.1\r\nHost: other\r\n\r\n")
      #expect(try await client.readResponse().text == "/cms/getGroups.json?a=b 127.0.0.1:4000")
    }
  }

  @Test func refusesTwoAuthorizationFields() async throws {
    try await withServer { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send(
        "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nauthorization: Bearer b\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.status == 400)
      #expect(response.text.contains("more than one Authorization"))
      #expect(try await client.readsEndOfStream())
    }
  }
}
