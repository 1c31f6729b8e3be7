import COpenSSL
import Foundation

/// A certificate authority made at run time with libcrypto, so the TLS tests and benchmarks
/// need no fixed files and no `openssl` command: it issues P-256 certificates for any host
/// names and IP addresses, valid (or not) for any window around now.
///
/// ```swift
/// let ca = try TestCertificateAuthority()
/// let files = try ca.issue(hosts: ["localhost", "127.0.0.1"]).write(to: folder)
/// ```
public final class TestCertificateAuthority: @unchecked Sendable {
  // Unchecked: the key and certificate are only read after `init`, and OpenSSL allows
  // concurrent reads of both.
  private let key: OpaquePointer
  private let certificate: OpaquePointer
  private let serials = NSLock()
  private var nextSerial = 2

  /// The CA's own certificate, PEM: what a client must trust.
  public let certificatePEM: String

  /// A fresh self-signed CA named `name`, valid from a day ago for ten years.
  public init(name: String = "susi test CA") throws {
    guard let key = susi_generate_p256_key() else { throw Failure("no key") }
    self.key = key
    guard let certificate = X509_new() else { throw Failure("no certificate") }
    self.certificate = certificate
    try Self.fill(
      certificate, serial: 1, commonName: name, key: key, notBefore: -86_400,
      notAfter: 86_400 * 3650)
    X509_set_issuer_name(certificate, X509_get_subject_name(certificate))
    try Self.extend(certificate, issuer: certificate, NID_basic_constraints, "critical,CA:TRUE")
    try Self.extend(certificate, issuer: certificate, NID_key_usage, "critical,keyCertSign,cRLSign")
    try Self.extend(certificate, issuer: certificate, NID_subject_key_identifier, "hash")
    guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw Failure("cannot sign") }
    certificatePEM = try Self.pem { PEM_write_bio_X509($0, certificate) }
  }

  deinit {
    X509_free(certificate)
    EVP_PKEY_free(key)
  }

  /// A server certificate and its key, for `hosts` (DNS names and IP literals alike), valid
  /// from `notBefore` to `notAfter` seconds from now (negative: in the past).
  public func issue(
    hosts: [String], notBefore: Int = -3600, notAfter: Int = 86_400
  ) throws -> IssuedCertificate {
    guard let leafKey = susi_generate_p256_key() else { throw Failure("no key") }
    defer { EVP_PKEY_free(leafKey) }
    guard let leaf = X509_new() else { throw Failure("no certificate") }
    defer { X509_free(leaf) }
    let serial = serials.withLock {
      nextSerial += 1
      return nextSerial
    }
    try Self.fill(
      leaf, serial: serial, commonName: hosts.first ?? "server", key: leafKey,
      notBefore: notBefore, notAfter: notAfter)
    X509_set_issuer_name(leaf, X509_get_subject_name(certificate))
    let names = hosts.map { host in
      host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." })
        ? "IP:\(host)" : "DNS:\(host)"
    }
    if !names.isEmpty {
      try Self.extend(leaf, issuer: certificate, NID_subject_alt_name, names.joined(separator: ","))
    }
    try Self.extend(leaf, issuer: certificate, NID_basic_constraints, "critical,CA:FALSE")
    try Self.extend(leaf, issuer: certificate, NID_ext_key_usage, "serverAuth")
    try Self.extend(leaf, issuer: certificate, NID_authority_key_identifier, "keyid")
    guard X509_sign(leaf, key, EVP_sha256()) > 0 else { throw Failure("cannot sign") }
    return IssuedCertificate(
      certificatePEM: try Self.pem { PEM_write_bio_X509($0, leaf) },
      keyPEM: try Self.pem { PEM_write_bio_PrivateKey($0, leafKey, nil, nil, 0, nil, nil) })
  }

  /// Writes the CA certificate to `folder/ca.pem` and returns its path.
  public func writeCertificate(to folder: String, name: String = "ca.pem") throws -> String {
    let path = folder + "/" + name
    try certificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  private static func fill(
    _ certificate: OpaquePointer, serial: Int, commonName: String, key: OpaquePointer,
    notBefore: Int, notAfter: Int
  ) throws {
    X509_set_version(certificate, 2)
    ASN1_INTEGER_set(X509_get_serialNumber(certificate), serial)
    X509_gmtime_adj(X509_getm_notBefore(certificate), notBefore)
    X509_gmtime_adj(X509_getm_notAfter(certificate), notAfter)
    X509_set_pubkey(certificate, key)
    let name = X509_get_subject_name(certificate)
    let added = X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0)
    guard added == 1 else { throw Failure("bad name \(commonName)") }
  }

  private static func extend(
    _ certificate: OpaquePointer, issuer: OpaquePointer, _ nid: Int32, _ value: String
  ) throws {
    guard susi_x509_add_extension(certificate, issuer, nid, value) == 1 else {
      throw Failure("bad extension \(value)")
    }
  }

  private static func pem(_ write: (OpaquePointer) -> Int32) throws -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { throw Failure("no buffer") }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { throw Failure("cannot write PEM") }
    let count = Int(BIO_ctrl_pending(bio))
    var bytes = [UInt8](repeating: 0, count: count)
    let read = BIO_read(bio, &bytes, Int32(count))
    return String(decoding: bytes.prefix(max(0, Int(read))), as: UTF8.self)
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}

/// A certificate a `TestCertificateAuthority` issued, with its private key.
public struct IssuedCertificate: Sendable {
  public var certificatePEM: String
  public var keyPEM: String

  /// Writes `server.pem` and `server.key` (mode 0600) into `folder`; returns their paths.
  public func write(to folder: String, name: String = "server") throws -> (
    certificate: String, key: String
  ) {
    let certificate = folder + "/\(name).pem"
    let key = folder + "/\(name).key"
    try certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
    _ = FileManager.default.createFile(
      atPath: key, contents: Data(keyPEM.utf8), attributes: [.posixPermissions: 0o600])
    return (certificate, key)
  }
}
