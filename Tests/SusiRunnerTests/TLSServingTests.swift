// The built `susi server` speaking HTTPS with --tls-cert and --tls-key.

import Foundation
import SusiHTTPClient
import SusiHTTPTesting
import SusiTLSTesting
import SusiTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `susi server --tls-cert --tls-key`: HTTPS only, a key file others may read refused, and a
/// new certificate taken on SIGHUP (that open connections survive it is
/// `TLSTransportTests.aReloadedCertificateServesNewConnectionsAndKeepsOpenOnes`).
@Suite(.hangLimit)
struct TLSServingTests {
  static func start(_ files: (certificate: String, key: String), folder: String) throws
    -> SusiProcess
  {
    try SusiBinary.built().start(
      [
        "server", "--port", "0", "--tls-cert", files.certificate, "--tls-key", files.key,
        "--state-dir", folder + "/state",
      ],
      environment: SusiBinary.isolatedEnvironment(folder))
  }

  @Test func theServerSpeaksOnlyHTTPSAndTakesANewCertificateOnHangup() async throws {
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let files = try TestTLS.authority.issue(hosts: ["localhost", "127.0.0.1"]).write(
      to: folder, name: "server")
    let server = try Self.start(files, folder: folder)
    defer { _ = server.stop() }
    let url = try #require(try server.nextLine())
    #expect(url.hasPrefix("https://127.0.0.1:"), "\(url)")
    let groups = url + "/cms/getGroups.json"
    let trusting = SocketTransport(caFile: TestTLS.caFile)
    #expect(try await trusting.send(TransportRequest(url: groups)).status == 200)
    let plain = try await SocketTransport().send(
      TransportRequest(url: "http" + groups.dropFirst(5)))
    #expect(plain.status == 400)

    // A certificate from another CA replaces the files; SIGHUP makes the server read them.
    let other = try TestCertificateAuthority(name: "next CA")
    let otherCA = try other.writeCertificate(to: folder, name: "next-ca.pem")
    let next = try other.issue(hosts: ["127.0.0.1"])
    try next.certificatePEM.write(toFile: files.certificate, atomically: true, encoding: .utf8)
    try next.keyPEM.write(toFile: files.key, atomically: false, encoding: .utf8)
    server.signal(SIGHUP)
    #expect(server.waitFor { $0.errors.contains("certificate re-read") })
    #expect(
      try await SocketTransport(caFile: otherCA).send(TransportRequest(url: groups)).status == 200)
  }

  @Test func aKeyFileOthersMayReadIsRefusedAtStart() async throws {
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let files = try TestTLS.authority.issue(hosts: ["127.0.0.1"]).write(to: folder, name: "server")
    chmod(files.key, 0o644)
    let run = try await SusiBinary.built().run(
      [
        "server", "--port", "0", "--tls-cert", files.certificate, "--tls-key", files.key,
        "--state-dir", folder + "/state",
      ],
      environment: SusiBinary.isolatedEnvironment(folder))
    #expect(run.status != 0)
    #expect(run.stderr.contains("chmod 600 \(files.key)"), "\(run.stderr)")
  }
}
