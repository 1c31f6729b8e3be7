import SusiCommandLine
import Testing

/// `--tls-cert` and `--tls-key` come as a pair, and a server others can reach without TLS is
/// warned about.
@Suite struct ServingTLSFilesTests {
  static func parse(_ arguments: [String]) -> ParsedCommandLine {
    var options: [String: String] = [:]
    for index in stride(from: 0, to: arguments.count, by: 2) {
      options[arguments[index]] = arguments[index + 1]
    }
    return ParsedCommandLine(options: options)
  }

  @Test func bothFilesOrNeither() throws {
    #expect(try ServingTLSFiles.resolve(Self.parse([])) == nil)
    #expect(
      try ServingTLSFiles.resolve(Self.parse(["--tls-cert", "c.pem", "--tls-key", "k.pem"]))
        == ServingTLSFiles(certificate: "c.pem", key: "k.pem"))
    #expect(throws: UsageError.self) {
      try ServingTLSFiles.resolve(Self.parse(["--tls-cert", "c.pem"]))
    }
    #expect(throws: UsageError.self) {
      try ServingTLSFiles.resolve(Self.parse(["--tls-key", "k.pem"]))
    }
  }

  @Test func onlyANonLoopbackAddressWithoutTLSIsWarnedAbout() {
    #expect(ServingTLSFiles.exposureWarning(host: "127.0.0.1", tls: false) == nil)
    #expect(ServingTLSFiles.exposureWarning(host: "::1", tls: false) == nil)
    #expect(ServingTLSFiles.exposureWarning(host: "0.0.0.0", tls: true) == nil)
    let warning = ServingTLSFiles.exposureWarning(host: "0.0.0.0", tls: false)
    #expect(warning?.contains("--tls-cert FILE --tls-key FILE") == true)
  }
}
