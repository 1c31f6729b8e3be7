import Foundation
import SusiCore
import SusiHTTPServer
import SusiHTTPTesting
import SusiHTTPTypes
import SusiTLS
import SusiTLSTesting
import SusiTesting
import Synchronization
import Testing

@testable import SusiHTTPClient
@testable import SusiRunner

#if canImport(Glibc)
  import Glibc
#endif

/// `https://` on our own transport against loopback servers: one handshake per kept
/// connection, resumed sessions, every refused certificate named, and the wrong protocol on
/// either side caught.
@Suite(.hangLimit)
struct TLSTransportTests {
  /// An HTTPS server on the event loops: answers `ok`, with `Connection: close` on `/close`.
  final class Server: HTTPHandler {
    let server: HTTPServer
    let port: Int

    init(_ tls: HTTPServerTLS?) throws {
      // A long idle timeout: a busy machine must not close the kept connection between
      // requests.
      server = HTTPServer(
        configuration: HTTPServer.Configuration(
          timeouts: HTTPTimeouts(head: .seconds(600), idle: .seconds(600)), tls: tls),
        handler: Answer())
      port = try server.start()
    }

    struct Answer: HTTPHandler {
      func handle(_ request: HTTPRequest) async -> HTTPResponse {
        var response = HTTPResponse(status: 200, contentType: "text/plain", body: "ok")
        if request.path == "/close" { response.headers.set("Connection", "close") }
        return response
      }
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse { HTTPResponse(status: 500) }

    static func identity() throws -> HTTPServerTLS {
      let files = try TestTLS.authority.issue(hosts: ["localhost", "127.0.0.1"]).write(
        to: TestTLS.folder, name: UUID().uuidString)
      return try HTTPServerTLS(certificateFile: files.certificate, keyFile: files.key)
    }
  }

  @Test func keptConnectionsNeedOneHandshakeEach() async throws {
    let server = try Server(Server.identity())
    defer { Task { await server.server.shutdown() } }
    let transport = SocketTransport(caFile: TestTLS.caFile)
    for _ in 0..<5 {
      let response = try await transport.send(
        TransportRequest(url: "https://localhost:\(server.port)/x"))
      #expect(response.body == Array("ok".utf8))
    }
    #expect(transport.statistics.connectionsOpened == 1)
    #expect(transport.statistics.tlsHandshakes == 1)
    #expect(server.server.openConnectionCount == 1)
  }

  /// Pipelining is for plain `http://`: over TLS, requests beyond the connections wait for one.
  @Test func requestsOverTLSAreNotPipelined() async throws {
    let server = try Server(Server.identity())
    defer { Task { await server.server.shutdown() } }
    let transport = SocketTransport(maximumConnectionsPerOrigin: 1, caFile: TestTLS.caFile)
    let url = "https://localhost:\(server.port)/x"
    #expect(try await transport.send(TransportRequest(url: url)).status == 200)
    let tasks = (0..<4).map { _ in Task { try await transport.send(TransportRequest(url: url)) } }
    for task in tasks { #expect(try await task.value.body == Array("ok".utf8)) }
    #expect(transport.statistics.requestsPipelined == 0)
    #expect(transport.statistics.connectionsOpened == 1)
  }

  @Test func aReloadedCertificateServesNewConnectionsAndKeepsOpenOnes() async throws {
    let first = try TestTLS.authority.issue(hosts: ["localhost"]).write(
      to: TestTLS.folder, name: UUID().uuidString)
    let identity = try HTTPServerTLS(certificateFile: first.certificate, keyFile: first.key)
    let server = HTTPServer(
      configuration: HTTPServer.Configuration(
        timeouts: HTTPTimeouts(head: .seconds(600), idle: .seconds(600)), tls: identity),
      handler: Server.Answer())
    let port = try server.start()
    defer { Task { await server.shutdown() } }
    let url = "https://localhost:\(port)/x"
    let kept = SocketTransport(caFile: TestTLS.caFile)
    #expect(try await kept.send(TransportRequest(url: url)).status == 200)

    let other = try TestCertificateAuthority(name: "next CA")
    let otherCA = try other.writeCertificate(to: TestTLS.folder, name: "\(UUID().uuidString).pem")
    let next = try other.issue(hosts: ["localhost"])
    try next.certificatePEM.write(toFile: first.certificate, atomically: true, encoding: .utf8)
    try next.keyPEM.write(toFile: first.key, atomically: false, encoding: .utf8)
    try identity.reload()

    #expect(
      try await SocketTransport(caFile: otherCA).send(TransportRequest(url: url)).status == 200)
    // The connection opened before the reload is still served, on its old certificate.
    #expect(try await kept.send(TransportRequest(url: url)).status == 200)
    #expect(kept.statistics.connectionsOpened == 1)
  }

  /// A TLS server over its connection limit sends no plain-text 503 on its TLS port (which a
  /// client would read as "this server does not speak TLS"): it closes the connection, and the
  /// client names a failed handshake.
  @Test func aFullTLSServerClosesInsteadOfAnsweringInPlainText() async throws {
    let server = HTTPServer(
      configuration: HTTPServer.Configuration(
        limits: HTTPLimits(maxConnections: 1, reservedConnections: 0),
        timeouts: HTTPTimeouts(head: .seconds(600), idle: .seconds(600)),
        tls: try Server.identity()),
      handler: Server.Answer())
    let port = try server.start()
    defer { Task { await server.shutdown() } }
    let url = "https://localhost:\(port)/x"
    let kept = SocketTransport(caFile: TestTLS.caFile)
    #expect(try await kept.send(TransportRequest(url: url)).status == 200)
    // The kept connection holds the one slot.
    let refused = await #expect(throws: TransportError.self) {
      try await SocketTransport(caFile: TestTLS.caFile).send(TransportRequest(url: url))
    }
    guard case .tls(let failure) = refused else {
      Issue.record("not a TLS failure: \(String(describing: refused))")
      return
    }
    #expect(failure.kind == .handshakeFailed, "\(failure)")
    // Raw bytes: nothing at all comes back, least of all an unencrypted `HTTP/1.1 503`.
    let raw = try LoopbackHTTPClient(port: port)
    try raw.send([22, 3, 1, 0, 0])
    #expect(try await raw.readsEndOfStream())
  }

  @Test func aNewConnectionResumesTheSessionOfTheOneBefore() async throws {
    let server = try Server(Server.identity())
    defer { Task { await server.server.shutdown() } }
    let transport = SocketTransport(caFile: TestTLS.caFile)
    for _ in 0..<3 {
      _ = try await transport.send(TransportRequest(url: "https://localhost:\(server.port)/close"))
    }
    #expect(transport.statistics.tlsHandshakes == 3)
    #expect(transport.statistics.tlsResumptions == 2)
  }

  /// Each certificate problem arrives as the `requestFailed` kind that names it, with a
  /// message that says what to do.
  @Test(arguments: [
    ("expired", RequestErrorKind.certificateExpired, "renew"),
    ("notYetValid", .certificateNotYetValid, "date and time"),
    ("otherHost", .certificateHostMismatch, "another host name"),
    ("unknownIssuer", .certificateUnknownIssuer, "--ca-file FILE"),
  ])
  func aRefusedCertificateIsARequestFailureNamingItsCause(
    _ case: String, _ kind: RequestErrorKind, _ advice: String
  ) async throws {
    let context =
      switch `case` {
      case "expired": try TestTLS.serverContext(notBefore: -7200, notAfter: -3600)
      case "notYetValid": try TestTLS.serverContext(notBefore: 3600, notAfter: 7200)
      case "otherHost": try TestTLS.serverContext(hosts: ["other.example"])
      default: try TestTLS.serverContext(issuer: TestCertificateAuthority(name: "stranger"))
      }
    let server = try #require(
      LoopbackServer(tls: context) { _ in LoopbackServer.reply(200, body: Array("ok".utf8)) })
    defer { server.stop() }
    let error = await #expect(throws: TransportError.self) {
      try await SocketTransport(caFile: TestTLS.caFile).send(
        TransportRequest(url: server.baseURL + "/x"))
    }
    let failure = RunnerFailure.transport(try #require(error), "/x")
    #expect(failure.kind == kind)
    #expect(failure.message.contains(advice), "\(failure.message)")
    #expect(server.requests.isEmpty)
  }

  @Test func aPlainHTTPServerBehindAnHTTPSURLIsNamed() async throws {
    let plain = try #require(SilentServer())
    let answered = Thread {
      let client = accept(plain.socket, nil, nil)
      var hello = [UInt8](repeating: 0, count: 512)
      _ = read(client, &hello, hello.count)
      let reply = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
      _ = write(client, reply, reply.count)
      close(client)
    }
    answered.start()
    let error = await #expect(throws: TransportError.self) {
      try await SocketTransport().send(TransportRequest(url: "https://127.0.0.1:\(plain.port)/"))
    }
    guard case .tls(let failure)? = error else {
      Issue.record("not a TLS failure: \(String(describing: error))")
      return
    }
    #expect(failure.kind == .notTLS)
    #expect(RunnerFailure.transport(.tls(failure), "/").kind == .tlsNotSpoken)
  }

  @Test func aPlainRequestToAnHTTPSServerIsToldToUseHTTPS() async throws {
    let server = try Server(Server.identity())
    defer { Task { await server.server.shutdown() } }
    let response = try await SocketTransport().send(
      TransportRequest(url: "http://127.0.0.1:\(server.port)/x"))
    #expect(response.status == 400)
    #expect(String(decoding: response.body, as: UTF8.self).contains("this port speaks HTTPS"))
  }

  @Test func aServerThatNeverFinishesTheHandshakeTimesOut() async throws {
    // Accepted into the backlog by the kernel, never answered: the ClientHello goes nowhere.
    // The timeout also bounds the connect, which a starved client loop can take a few tenths
    // of a second to see done: 2 s leave it that time, so the handshake is what times out.
    let stalled = try #require(SilentServer())
    await #expect(
      throws: TransportError.cannotConnect("the server did not finish the TLS handshake in time")
    ) {
      try await SocketTransport().send(
        TransportRequest(url: "https://127.0.0.1:\(stalled.port)/", idleTimeout: 2))
    }
  }

  @Test func thePrivateAddressPolicyHoldsForHTTPS() async throws {
    let error = await #expect(throws: TransportError.self) {
      try await SocketTransport().send(
        TransportRequest(url: "https://127.0.0.1:9/", targetPolicy: TargetPolicy()))
    }
    guard case .refused? = error else {
      Issue.record("not refused: \(String(describing: error))")
      return
    }
  }

  /// A TLS server that completes the handshake and then says nothing, waited on for 2 s, costs
  /// the client's event loop thread next to no CPU.
  @Test func waitingTwoSecondsOnASilentTLSServerCostsNextToNoCPU() async throws {
    let server = try TransportContractTests.server(.tls)
    defer { server.stop() }
    let transport = SocketTransport(caFile: TestTLS.caFile)
    // Only the wait is measured, not the handshake's arithmetic: a first request opens the
    // loop thread, and the silent request's handshake is cheap next to a 2 s wait's budget.
    _ = try await transport.send(TransportRequest(url: server.baseURL + "/ok"))
    let cpu = transport.loopCPUSeconds
    let start = ContinuousClock.now
    await #expect(throws: TransportError.timedOut) {
      try await transport.send(
        TransportRequest(url: server.baseURL + "/silent", idleTimeout: 2, totalTimeout: 2))
    }
    let elapsed = (ContinuousClock.now - start) / .seconds(1)
    let used = transport.loopCPUSeconds - cpu
    #expect(elapsed >= 1.9)
    #expect(used < 0.05, "waiting cost \(used) s of CPU")
  }
}
