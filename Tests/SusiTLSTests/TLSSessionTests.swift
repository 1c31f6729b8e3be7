import Foundation
import SusiHTTPTesting
import SusiTLS
import SusiTLSTesting
import Testing

/// The TLS state machine with no sockets at all: a client and a server session hand each other
/// their bytes in memory, so every certificate verdict is checked deterministically.
@Suite struct TLSSessionTests {
  static let authority: TestCertificateAuthority = {
    do { return try TestCertificateAuthority() } catch { fatalError("no test CA: \(error)") }
  }()

  static let folder: String = {
    let path =
      TestScratch.root.path + "/susi-tls-session-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }()

  static let caFile: String = {
    do { return try authority.writeCertificate(to: folder) } catch { fatalError("\(error)") }
  }()

  static func server(
    hosts: [String] = ["localhost", "127.0.0.1"], notBefore: Int = -3600, notAfter: Int = 86_400,
    issuer: TestCertificateAuthority = authority
  ) throws -> TLSContext {
    let files = try issuer.issue(hosts: hosts, notBefore: notBefore, notAfter: notAfter)
      .write(to: folder, name: UUID().uuidString)
    return try TLSContext.server(certificateFile: files.certificate, keyFile: files.key)
  }

  /// Runs the handshake between the two in memory; the client's failure, if any.
  static func connect(_ client: TLSSession, _ server: TLSSession) throws(TLSFailure) {
    for _ in 0..<20 {
      let clientDone = try client.handshake() == .complete
      try server.received(client.takeOutput())
      let serverDone = (try? server.handshake()) == .complete
      try client.received(server.takeOutput())
      if clientDone && serverDone { return }
    }
    throw TLSFailure(.handshakeFailed, "the handshake did not end")
  }

  /// Sends `text` from one session to the other and returns what arrived.
  static func pass(_ text: String, from sender: TLSSession, to receiver: TLSSession) throws
    -> String
  {
    try sender.write(Array(text.utf8))
    try receiver.received(sender.takeOutput())
    var buffer = [UInt8](repeating: 0, count: 1024)
    let result = try buffer.withUnsafeMutableBytes { try receiver.read(into: $0) }
    guard case .bytes(let count) = result else { return "" }
    return String(decoding: buffer[0..<count], as: UTF8.self)
  }

  @Test func aTrustedCertificateForTheHostCarriesDataBothWaysOverHTTP11() throws {
    let client = try TLSSession(client: TLSContext.client(caFile: Self.caFile), host: "localhost")
    let server = try TLSSession(server: Self.server())
    try Self.connect(client, server)
    #expect(client.negotiatedProtocol == "http/1.1")
    #expect(server.negotiatedProtocol == "http/1.1")
    #expect(["TLSv1.2", "TLSv1.3"].contains(client.protocolVersion))
    #expect(
      try Self.pass("GET / HTTP/1.1\r\n\r\n", from: client, to: server) == "GET / HTTP/1.1\r\n\r\n")
    #expect(
      try Self.pass("HTTP/1.1 200 OK\r\n\r\n", from: server, to: client)
        == "HTTP/1.1 200 OK\r\n\r\n")
  }

  @Test func anIPAddressIsCheckedAgainstTheCertificatesAddresses() throws {
    let context = try TLSContext.client(caFile: Self.caFile)
    try Self.connect(
      try TLSSession(client: context, host: "127.0.0.1"), try TLSSession(server: Self.server()))
    #expect(throws: TLSFailure.self) {
      try Self.connect(
        try TLSSession(client: context, host: "127.0.0.2"), try TLSSession(server: Self.server()))
    }
  }

  /// Each refused certificate gets the kind that names its cause.
  @Test(arguments: [
    ("expired", TLSFailure.Kind.certificateExpired),
    ("notYetValid", .certificateNotYetValid),
    ("otherHost", .hostMismatch),
    ("unknownIssuer", .unknownIssuer),
    ("selfSignedCAOnly", .unknownIssuer),
  ])
  func aRefusedCertificateNamesItsCause(_ case: String, _ kind: TLSFailure.Kind) throws {
    let server: TLSContext
    var caFile: String? = Self.caFile
    switch `case` {
    case "expired": server = try Self.server(notBefore: -7200, notAfter: -3600)
    case "notYetValid": server = try Self.server(notBefore: 3600, notAfter: 7200)
    case "otherHost": server = try Self.server(hosts: ["other.example"])
    case "unknownIssuer":
      server = try Self.server(issuer: TestCertificateAuthority(name: "stranger"))
    default:
      server = try Self.server()
      caFile = nil
    }
    let client = try TLSSession(client: TLSContext.client(caFile: caFile), host: "localhost")
    #expect {
      try Self.connect(client, try TLSSession(server: server))
    } throws: { error in
      (error as? TLSFailure)?.kind == kind
    }
  }

  @Test func aPlainTextAnswerIsNotTLS() throws {
    let client = try TLSSession(client: TLSContext.client(caFile: Self.caFile), host: "localhost")
    _ = try client.handshake()
    #expect(client.pendingOutput > 0)
    #expect(throws: TLSFailure(.notTLS, "the server answered in plain text, not TLS")) {
      try client.received(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
    }
    let server = try TLSSession(server: Self.server())
    #expect(throws: TLSFailure(.notTLS, "the client does not speak TLS")) {
      try server.received(Array("GET / HTTP/1.1\r\n".utf8))
    }
  }

  @Test func aSecondConnectionResumesTheFirstOnesSession() throws {
    let context = try TLSContext.client(caFile: Self.caFile)
    let serverContext = try Self.server()
    let first = try TLSSession(client: context, host: "localhost", sessionKey: "origin")
    let firstServer = try TLSSession(server: serverContext)
    try Self.connect(first, firstServer)
    // TLS 1.3 sends the ticket after the handshake, with the first data.
    _ = try Self.pass("hello", from: firstServer, to: first)
    #expect(!first.resumedSession)
    first.saveSessionForResumption()
    let second = try TLSSession(client: context, host: "localhost", sessionKey: "origin")
    try Self.connect(second, try TLSSession(server: serverContext))
    #expect(second.resumedSession)
    let other = try TLSSession(client: context, host: "localhost", sessionKey: "elsewhere")
    try Self.connect(other, try TLSSession(server: serverContext))
    #expect(!other.resumedSession)
  }

  @Test func aKeyFileOthersMayReadIsRefused() throws {
    let files = try Self.authority.issue(hosts: ["localhost"]).write(
      to: Self.folder, name: UUID().uuidString)
    chmod(files.key, 0o644)
    #expect {
      try TLSContext.server(certificateFile: files.certificate, keyFile: files.key)
    } throws: { error in
      "\(error)".contains("chmod 600 \(files.key)")
    }
    chmod(files.key, 0o600)
    _ = try TLSContext.server(certificateFile: files.certificate, keyFile: files.key)
  }

  @Test func aMissingOrEmptyCAFileIsNamed() throws {
    #expect {
      try TLSContext.client(caFile: Self.folder + "/missing.pem")
    } throws: { error in
      "\(error)".hasPrefix("cannot read the CA file \(Self.folder)/missing.pem")
    }
    let empty = Self.folder + "/empty.pem"
    _ = FileManager.default.createFile(atPath: empty, contents: Data("not a certificate".utf8))
    #expect {
      try TLSContext.client(caFile: empty)
    } throws: { error in
      "\(error)".hasPrefix("the CA file \(empty) holds no PEM certificate")
    }
  }
}
