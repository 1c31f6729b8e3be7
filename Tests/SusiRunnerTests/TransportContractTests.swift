import Foundation
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiTesting
import Testing

/// The one transport the runner sends with, over both schemes: `http://`, and `https://` to a
/// server whose certificate comes from the tests' own CA.
enum TransportUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case plain
  case tls

  func make() -> any HTTPTransport {
    switch self {
    case .plain: SocketTransport()
    case .tls: SocketTransport(caFile: TestTLS.caFile)
    }
  }

  var testDescription: String { rawValue }
}

/// What the runner needs from every transport, against a loopback server: replies, bodies,
/// limits, redirects, errors and cancellation.
@Suite(.hangLimit)
struct TransportContractTests {
  static let big = [UInt8](repeating: UInt8(ascii: "x"), count: 300_000)

  /// A loopback server with the routes every transport is tested on; `more` answers first,
  /// for routes of one transport's own tests.
  static func server(
    _ transport: TransportUnderTest = .plain,
    _ more: @escaping @Sendable (String) -> LoopbackServer.Reply? = { _ in nil }
  ) throws -> LoopbackServer {
    try #require(
      LoopbackServer(tls: transport == .tls ? TestTLS.goodServer : nil) { path in
        if let reply = more(path) { return reply }
        return switch path {
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
  ) -> TransportRequest {
    var request = TransportRequest(url: server.baseURL + path, idleTimeout: 60, totalTimeout: 60)
    change(&request)
    return request
  }

  @Test(arguments: TransportUnderTest.allCases)
  func aReplyComesBackWithStatusHeadersAndBody(_ transport: TransportUnderTest) async throws {
    let server = try Self.server(transport)
    defer { server.stop() }
    let response = try await transport.make().send(Self.request(server, "/ok"))
    #expect(response.status == 200)
    #expect(response.mediaType == "application/javascript")
    #expect(response.body == Array(#"{"a":1}"#.utf8))
  }

  @Test(arguments: TransportUnderTest.allCases)
  func aFormBodyIsSent(_ transport: TransportUnderTest) async throws {
    let server = try Self.server(transport)
    defer { server.stop() }
    let request = Self.request(server, "/ok") {
      $0.method = "POST"
      $0.headers = ["Content-Type": "application/x-www-form-urlencoded"]
      $0.body = Array("login=a%40b.example&password=pw".utf8)
    }
    _ = try await transport.make().send(request)
    let received = try #require(server.requests.first)
    #expect(received.hasPrefix("POST /ok HTTP/1.1"))
    #expect(received.hasSuffix("\r\n\r\nlogin=a%40b.example&password=pw"))
  }

  @Test(arguments: TransportUnderTest.allCases, ["/big", "/unsized"])
  func aBodyOverTheLimitIsRefused(_ transport: TransportUnderTest, path: String) async throws {
    let server = try Self.server(transport)
    defer { server.stop() }
    await #expect(throws: TransportError.tooLarge(limit: 100_000)) {
      try await transport.make().send(Self.request(server, path) { $0.maximumBodyBytes = 100_000 })
    }
  }

  @Test(arguments: TransportUnderTest.allCases, ["/big", "/unsized"])
  func aLongBodyCanBeCutInsteadOfRefused(_ transport: TransportUnderTest, path: String)
    async throws
  {
    let server = try Self.server(transport)
    defer { server.stop() }
    let response = try await transport.make().send(
      Self.request(server, path) {
        $0.maximumBodyBytes = 1000
        $0.truncatesLongBodies = true
      })
    #expect(response.status == 200)
    #expect(response.body.count == 1000)
  }

  @Test(arguments: TransportUnderTest.allCases)
  func redirectsAreReturnedUnlessFollowingIsAsked(_ transport: TransportUnderTest) async throws {
    let server = try Self.server(transport)
    defer { server.stop() }
    let sender = transport.make()
    let refused = try await sender.send(Self.request(server, "/moved"))
    #expect(refused.status == 302)
    #expect(refused.headers["Location"] == "/ok")
    let followed = try await sender.send(
      Self.request(server, "/moved") { $0.followsRedirects = true })
    #expect(followed.status == 200)
    #expect(followed.finalURL == server.baseURL + "/ok")
  }

  @Test(arguments: TransportUnderTest.allCases)
  func errorStatusesAreReplies(_ transport: TransportUnderTest) async throws {
    let server = try Self.server(transport)
    defer { server.stop() }
    let response = try await transport.make().send(Self.request(server, "/missing"))
    #expect(response.status == 404)
  }

  @Test(arguments: TransportUnderTest.allCases)
  func aClosedPortCannotBeReached(_ transport: TransportUnderTest) async throws {
    let closed = try #require(SilentServer(listening: false))
    let url = "\(transport == .tls ? "https" : "http")://127.0.0.1:\(closed.port)"
    await #expect(throws: TransportError.cannotConnect("the connection was refused")) {
      try await transport.make().send(
        TransportRequest(url: url + "/ok", idleTimeout: 60, totalTimeout: 60))
    }
  }

  @Test(arguments: TransportUnderTest.allCases)
  func cancellingTheTaskStopsTheRequest(_ transport: TransportUnderTest) async throws {
    let server = try Self.server(transport)
    defer { server.stop() }
    let sender = transport.make()
    let task = Task { try await sender.send(Self.request(server, "/silent")) }
    await waitUntil("the request to arrive") { !server.requests.isEmpty }
    task.cancel()
    await #expect(throws: TransportError.cancelled) { try await task.value }
  }

  @Test(arguments: TransportUnderTest.allCases)
  func onlyHTTPURLsAreRequested(_ transport: TransportUnderTest) async {
    await #expect(throws: TransportError.invalidURL("not an absolute http(s) URL")) {
      try await transport.make().send(TransportRequest(url: "file:///etc/passwd"))
    }
  }
}
