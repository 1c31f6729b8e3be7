// The built `susi` against an HTTPS server whose certificate comes from a private CA.

import Foundation
import SusiHTTPTesting
import SusiTesting
import Testing

/// A person pointing `susi` at a server with a private CA: told what is wrong and what to do,
/// then trusted with `SSL_CERT_FILE` or `--ca-file`, which is remembered with the server.
@Suite(.hangLimit)
struct TLSBinaryTests {
  /// Runs `susi` in `folder` with `arguments` and `extra` environment variables.
  static func run(
    _ arguments: [String], folder: String, input: String = "", _ extra: [String: String] = [:]
  )
    async throws -> (Int32, String, String)
  {
    var environment = ["PATH": "/usr/bin:/bin", "HOME": folder, "LANG": "C.UTF-8", "NO_COLOR": "1"]
    environment.merge(extra) { $1 }
    let run = try await SusiBinary.built().run(
      ["--state-dir", folder + "/state", "--log", folder + "/events.jsonl"] + arguments,
      input: input, environment: environment)
    return (run.status, run.stdout, run.stderr)
  }

  static func server() throws -> LoopbackServer {
    try #require(
      LoopbackServer(tls: TestTLS.goodServer) { _ in
        LoopbackServer.reply(404, body: Array("<title>Error 404 Not here</title>".utf8))
      })
  }

  @Test func anUnknownIssuerIsNamedWithTheWayToTrustIt() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let (status, _, errors) = try await Self.run(
      ["--server", server.baseURL, "groups"], folder: folder)
    #expect(status != 0)
    #expect(errors.contains("issued by an authority this machine does not trust"), "\(errors)")
    #expect(errors.contains("--ca-file FILE"))
    #expect(server.requests.isEmpty)
    // The program's view: the event names the kind.
    let (_, output, _) = try await Self.run(
      ["--server", server.baseURL, "jsonl"], folder: folder,
      input: #"{"type":"loadGroups","payload":{},"id":"g"}"# + "\n")
    #expect(output.contains(#""kind":"certificateUnknownIssuer""#), "\(output)")
  }

  @Test func sslCertFileTrustsThePrivateCA() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let (_, _, errors) = try await Self.run(
      ["--server", server.baseURL, "groups"], folder: folder, ["SSL_CERT_FILE": TestTLS.caFile])
    // Through TLS to the server, which answers 404.
    #expect(!server.requests.isEmpty)
    #expect(errors.contains("HTTP 404"), "\(errors)")
  }

  @Test func theCAFileIsRememberedWithTheServer() async throws {
    let server = try Self.server()
    defer { server.stop() }
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let use = try await SusiBinary.built().run(
      ["server", "use", server.baseURL, "--state-dir", folder + "/state"],
      environment: ["PATH": "/usr/bin:/bin", "HOME": folder, "LANG": "C.UTF-8"])
    #expect(use.status == 0, "\(use.stderr)")
    _ = try await Self.run(["--ca-file", TestTLS.caFile, "groups"], folder: folder)
    #expect(server.requests.count == 1)
    // The next start uses the remembered server, and the CA file given with it.
    let (_, _, errors) = try await Self.run(["groups"], folder: folder)
    #expect(server.requests.count == 2, "\(errors)")
    #expect(errors.contains("HTTP 404"), "\(errors)")
    // A CA file given with a server for one run is not kept.
    let other = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: other) }
    _ = try await Self.run(
      ["--server", server.baseURL, "--ca-file", TestTLS.caFile, "groups"], folder: other)
    #expect(server.requests.count == 3)
    let (_, _, untrusted) = try await Self.run(
      ["--server", server.baseURL, "groups"], folder: other)
    #expect(server.requests.count == 3, "\(untrusted)")
    #expect(untrusted.contains("certificate"), "\(untrusted)")
  }

  @Test func anUnreadableCAFileIsRefusedAtOnce() async throws {
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let (status, _, errors) = try await Self.run(
      ["--server", "https://localhost:1", "--ca-file", folder + "/none.pem", "groups"],
      folder: folder)
    #expect(status == 64)
    #expect(errors.contains("cannot read the CA file \(folder)/none.pem"), "\(errors)")
  }
}
