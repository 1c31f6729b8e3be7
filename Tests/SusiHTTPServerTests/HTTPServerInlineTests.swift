import SusiHTTPTesting
import SusiHTTPTypes
import Synchronization
import Testing

@testable import SusiHTTPServer

/// A handler that takes requests through `respond(to:with:)`: `/now/…` answered before it
/// returns, `/later/…` from another thread once the test lets it, `/declined/…` declined after
/// a look, anything else never offered.
final class InlineHandler: HTTPHandler {
  let held = Mutex<[(String, HTTPResponder)]>([])
  let handled = Atomic(0)

  func handle(_ request: HTTPRequest) async -> HTTPResponse {
    handled.add(1, ordering: .relaxed)
    return HTTPResponse(status: 200, contentType: "text/plain", body: "task \(request.target)")
  }

  func respondsInline(to request: HTTPRequest) -> Bool {
    request.target.hasPrefix("/now/") || request.target.hasPrefix("/later/")
      || request.target.hasPrefix("/declined/")
  }

  func respond(to request: HTTPRequest, with responder: HTTPResponder) -> Bool {
    if request.target.hasPrefix("/now/") {
      responder(HTTPResponse(status: 201, contentType: "text/plain", body: "now \(request.target)"))
      return true
    }
    if request.target.hasPrefix("/later/") {
      held.withLock { $0.append((request.target, responder)) }
      return true
    }
    return false
  }

  /// Answers the held requests from a thread of the global pool, not an event loop.
  func answerHeld() async {
    let held = self.held.withLock { held in
      defer { held = [] }
      return held
    }
    await Task.detached {
      for (target, responder) in held {
        responder(HTTPResponse(status: 202, contentType: "text/plain", body: "later \(target)"))
      }
    }.value
  }

  var heldCount: Int { held.withLock { $0.count } }
}

@Suite struct HTTPServerInlineTests {
  @Test func anAnswerGivenBeforeRespondReturnsIsSentWithoutATask() async throws {
    let handler = InlineHandler()
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /now/1 HTTP/1.1\r\nHost: x\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.status == 201)
      #expect(response.text == "now /now/1")
      #expect(handler.handled.load(ordering: .relaxed) == 0)
    }
  }

  @Test func pipelinedRequestsAnsweredAtOnceOrLaterOrByATaskComeBackInOrder() async throws {
    let handler = InlineHandler()
    try await withServer(handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      // Many answered on the spot in a row (each waits for the loop's work, none nests in the
      // one before), then one held, then one never offered and one declined.
      let targets =
        (0..<500).map { "/now/\($0)" } + ["/later/a", "/other", "/declined/b", "/now/last"]
      try client.send(targets.map { "GET \($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
      var answered: [String] = []
      for _ in 0..<500 { answered.append(try await client.readResponse().text) }
      #expect(answered == (0..<500).map { "now /now/\($0)" })
      while handler.heldCount == 0 { await Task.yield() }
      await handler.answerHeld()
      #expect(try await client.readResponse().text == "later /later/a")
      #expect(try await client.readResponse().text == "task /other")
      #expect(try await client.readResponse().text == "task /declined/b")
      #expect(try await client.readResponse().text == "now /now/last")
      #expect(handler.handled.load(ordering: .relaxed) == 2)
    }
  }

  @Test func answersGivenFromAnotherThreadReachEveryConnection() async throws {
    let handler = InlineHandler()
    try await withServer(handler: handler) { _, port in
      let clients = try (0..<8).map { _ in try LoopbackHTTPClient(port: port) }
      for (index, client) in clients.enumerated() {
        try client.send("POST /later/\(index) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
      }
      while handler.heldCount < clients.count { await Task.yield() }
      await handler.answerHeld()
      for (index, client) in clients.enumerated() {
        let response = try await client.readResponse()
        #expect(response.status == 202)
        #expect(response.text == "later /later/\(index)")
      }
    }
  }

  @Test func aRequestStillHeldDoesNotKeepShutdownWaitingOnceItIsAnswered() async throws {
    let handler = InlineHandler()
    let server = HTTPServer(configuration: .init(), handler: handler)
    let port = try server.start()
    let client = try LoopbackHTTPClient(port: port)
    try client.send("GET /later/x HTTP/1.1\r\nHost: x\r\n\r\n")
    while handler.heldCount == 0 { await Task.yield() }
    async let stopped: Void = server.shutdown()
    await handler.answerHeld()
    #expect(try await client.readResponse().text == "later /later/x")
    await stopped
  }
}
