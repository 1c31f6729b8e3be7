import Foundation
import SusiHTTPClient
import SusiHTTPTypes
import SusiRunner
import SusiTesting
import Testing

/// The production transport against a loopback server: limits, redirects, errors.
@Suite(.timeLimit(.minutes(1)))
struct URLSessionTransportTests {
  static let big = [UInt8](repeating: UInt8(ascii: "x"), count: 300_000)

  static func server() throws -> LoopbackServer {
    try #require(
      LoopbackServer { path in
        switch path {
        case "/ok":
          LoopbackServer.reply(
            200, ["Content-Type: application/javascript"], body: Array(#"{"a":1}"#.utf8))
        case "/big": LoopbackServer.reply(200, body: big)
        case "/unsized": .bytes(Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8) + big)
        case "/moved": LoopbackServer.reply(302, ["Location: /ok"])
        case "/silent": .silence
        default: LoopbackServer.reply(404, body: Array("<title>Error 404 Not here</title>".utf8))
        }
      })
  }

  static func request(
    _ server: LoopbackServer, _ path: String, _ change: (inout TransportRequest) -> Void = { _ in }
  )
    -> TransportRequest
  {
    var request = TransportRequest(url: server.baseURL + path, idleTimeout: 60, totalTimeout: 60)
    change(&request)
    return request
  }

  @Test func aReplyComesBackWithStatusHeadersAndBody() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let response = try await URLSessionTransport().send(Self.request(server, "/ok"))
    #expect(response.status == 200)
    #expect(response.mediaType == "application/javascript")
    #expect(response.body == Array(#"{"a":1}"#.utf8))
  }

  @Test func aFormBodyIsSent() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let request = Self.request(server, "/ok") {
      $0.method = "POST"
      $0.headers = ["Content-Type": "application/x-www-form-urlencoded"]
      $0.body = Array("login=a%40b.example&password=pw".utf8)
    }
    _ = try await URLSessionTransport().send(request)
    let received = try #require(server.requests.first)
    #expect(received.hasPrefix("POST /ok HTTP/1.1"))
    #expect(received.hasSuffix("\r\n\r\nlogin=a%40b.example&password=pw"))
  }

  @Test(arguments: ["/big", "/unsized"])
  func aBodyOverTheLimitIsRefused(path: String) async throws {
    let server = try Self.server()
    defer { server.stop() }
    await #expect(throws: TransportError.tooLarge(limit: 100_000)) {
      try await URLSessionTransport().send(
        Self.request(server, path) { $0.maximumBodyBytes = 100_000 })
    }
  }

  @Test func aLongBodyCanBeCutInsteadOfRefused() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let response = try await URLSessionTransport().send(
      Self.request(server, "/unsized") {
        $0.maximumBodyBytes = 1000
        $0.truncatesLongBodies = true
      })
    #expect(response.status == 200)
    #expect(response.body.count == 1000)
  }

  @Test func redirectsAreReturnedUnlessFollowingIsAsked() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let transport = URLSessionTransport()
    let refused = try await transport.send(Self.request(server, "/moved"))
    #expect(refused.status == 302)
    #expect(refused.headers["Location"] == "/ok")
    let followed = try await transport.send(
      Self.request(server, "/moved") { $0.followsRedirects = true })
    #expect(followed.status == 200)
    #expect(followed.finalURL == server.baseURL + "/ok")
  }

  @Test func errorStatusesAreReplies() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let response = try await URLSessionTransport().send(Self.request(server, "/missing"))
    #expect(response.status == 404)
  }

  @Test func aClosedPortCannotBeReached() async throws {
    let server = try Self.server()
    let url = server.baseURL
    server.stop()
    await #expect(throws: TransportError.cannotConnect("the connection was refused")) {
      try await URLSessionTransport().send(
        TransportRequest(url: url + "/ok", idleTimeout: 60, totalTimeout: 60))
    }
  }

  @Test func aSilentServerTimesOutAfterTheIdleTimeout() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let start = ContinuousClock.now
    await #expect(throws: TransportError.timedOut) {
      // Linux's URLSession counts whole seconds; a fraction is rounded up, never down to zero.
      try await URLSessionTransport(idleTimeout: 0.2, resourceTimeout: 5).send(
        Self.request(server, "/silent") { $0.idleTimeout = 0.2 })
    }
    #expect(ContinuousClock.now - start >= .milliseconds(900))
  }

  @Test func cancellingTheTaskStopsTheRequest() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let transport = URLSessionTransport()
    let task = Task { try await transport.send(Self.request(server, "/silent")) }
    await waitUntil("the request to arrive") { !server.requests.isEmpty }
    task.cancel()
    await #expect(throws: TransportError.cancelled) { try await task.value }
  }

  @Test func onlyHTTPURLsAreRequested() async {
    await #expect(throws: TransportError.invalidURL("not an absolute http(s) URL")) {
      try await URLSessionTransport().send(TransportRequest(url: "file:///etc/passwd"))
    }
  }
}
