import Foundation
import SusiHTTPClient
import SusiHTTPServer
import SusiHTTPTesting
import SusiHTTPTypes
import SusiTLSTesting
import Synchronization
import Testing

@testable import SusiServer

/// A console rule's `https://` fetch trusts the CA given with `--ca-file`, as every other
/// request does (the built-in server's console service makes its client with it).
@Suite(.hangLimit)
struct ConsoleTLSTests {
  @Test func aConsoleFetchTrustsTheGivenCAFile() async throws {
    let server = try TLSTransportTests.Server(TLSTransportTests.Server.identity())
    defer { Task { await server.server.shutdown() } }
    let url = "https://localhost:\(server.port)/api"
    var configuration = ConsoleService.Configuration(allowsPrivateHosts: true, cacheSeconds: 0)
    let warnings = WarningBox()
    let untrusting = ConsoleService(
      transport: nil, configuration: configuration, warn: { warnings.add($0) })
    #expect(await untrusting.fetch(url, headers: HTTPHeaders()) == nil)
    #expect(warnings.lines.contains { $0.contains("certificate") }, "\(warnings.lines)")

    configuration.caFile = TestTLS.caFile
    let trusting = ConsoleService(transport: nil, configuration: configuration)
    let response = await trusting.fetch(url, headers: HTTPHeaders())
    #expect(response?.body == Array("ok".utf8))
  }

  @Test func aCAFileWithoutCertificatesIsNamed() throws {
    let file = TestScratch.root.appendingPathComponent(
      "console-ca-\(UUID().uuidString).pem")
    try "no certificates".write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    #expect(ConsoleService.problem(withCAFile: file.path) != nil)
    #expect(ConsoleService.problem(withCAFile: TestTLS.caFile) == nil)
  }

  final class WarningBox: Sendable {
    private let state = Mutex<[String]>([])
    func add(_ line: String) { state.withLock { $0.append(line) } }
    var lines: [String] { state.withLock { $0 } }
  }
}
