import Foundation
import SusiHTTPTesting
import SusiTLS
import SusiTLSTesting

/// One certificate authority per test run, its certificate in a file a client can be told to
/// trust, and server contexts it issued.
enum TestTLS {
  static let authority: TestCertificateAuthority = {
    do { return try TestCertificateAuthority() } catch { fatalError("no test CA: \(error)") }
  }()

  static let folder: String = {
    let path = TestScratch.root.path + "/susi-tls-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }()

  /// The CA's certificate as a file, for `--ca-file` and `SSL_CERT_FILE`.
  static let caFile: String = {
    do { return try authority.writeCertificate(to: folder) } catch { fatalError("\(error)") }
  }()

  /// A server context with a certificate for `hosts`, valid from `notBefore` to `notAfter`
  /// seconds from now, issued by `issuer` (by default the test CA).
  static func serverContext(
    hosts: [String] = ["localhost", "127.0.0.1"], notBefore: Int = -3600, notAfter: Int = 86_400,
    issuer: TestCertificateAuthority = authority
  ) throws -> TLSContext {
    let files = try issuer.issue(hosts: hosts, notBefore: notBefore, notAfter: notAfter)
      .write(to: folder, name: "server-\(UUID().uuidString)")
    return try TLSContext.server(certificateFile: files.certificate, keyFile: files.key)
  }

  /// The default server context: valid, for localhost and 127.0.0.1.
  static let goodServer: TLSContext = {
    do { return try serverContext() } catch { fatalError("\(error)") }
  }()
}
