import COpenSSL
import Glibc
import Synchronization

/// The settings every TLS connection of one side shares (OpenSSL's `SSL_CTX`): for a client the
/// certificates it trusts and the sessions it may resume, for a server its certificate and key.
///
/// Both sides speak TLS 1.2 or newer and offer (or pick) the ALPN protocol `http/1.1`. A client
/// trusts the system's store (OpenSSL reads `SSL_CERT_FILE` and `SSL_CERT_DIR` in place of its
/// default file and folder when they are set) plus the certificates of `caFile`; it always
/// verifies the server's certificate and host name: there is no way to turn that off.
///
/// ```swift
/// let context = try TLSContext.client(caFile: "/etc/my-ca.pem")
/// let session = try TLSSession(client: context, host: "susi.example.org")
/// ```
public final class TLSContext: @unchecked Sendable {
  // Unchecked: OpenSSL allows one `SSL_CTX` to be shared by threads once it is configured (it is
  // never changed after the factory returns), and `sessions` is behind a mutex.
  let pointer: OpaquePointer
  /// Whether connections made from it accept (true) or connect.
  public let isServer: Bool
  /// The CA file given besides the system store, for messages.
  public let caFile: String?
  private let sessions = Mutex<[String: SavedSession]>([:])

  private init(pointer: OpaquePointer, isServer: Bool, caFile: String?) {
    self.pointer = pointer
    self.isServer = isServer
    self.caFile = caFile
  }

  deinit { SSL_CTX_free(pointer) }

  /// A client context trusting the system store (and `SSL_CERT_FILE`, `SSL_CERT_DIR`) and, when
  /// given, the certificates in the PEM file `caFile`.
  public static func client(caFile: String? = nil) throws(TLSSetupError) -> TLSContext {
    OpenSSLErrors.clear()
    guard let pointer = SSL_CTX_new(TLS_client_method()) else {
      throw TLSSetupError("OpenSSL could not make a TLS context: \(OpenSSLErrors.take())")
    }
    let context = TLSContext(pointer: pointer, isServer: false, caFile: caFile)
    try context.setCommonOptions()
    SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, nil)
    // The system store; OpenSSL honours SSL_CERT_FILE and SSL_CERT_DIR here.
    _ = SSL_CTX_set_default_verify_paths(pointer)
    OpenSSLErrors.clear()
    if let caFile {
      guard access(caFile, R_OK) == 0 else {
        throw TLSSetupError(
          "cannot read the CA file \(caFile): \(String(cString: strerror(errno)))")
      }
      guard SSL_CTX_load_verify_locations(pointer, caFile, nil) == 1 else {
        throw TLSSetupError(
          "the CA file \(caFile) holds no PEM certificate (\(OpenSSLErrors.take()))")
      }
    }
    let alpn: [UInt8] = [8] + Array("http/1.1".utf8)
    _ = SSL_CTX_set_alpn_protos(pointer, alpn, UInt32(alpn.count))
    _ = susi_ssl_ctx_set_session_cache_client(pointer)
    return context
  }

  /// A server context presenting the certificate chain in `certificateFile` (PEM, the server's
  /// own certificate first) with the private key in `keyFile`.
  ///
  /// Refuses a key file that others than its owner may read, and a key that does not match the
  /// certificate.
  public static func server(certificateFile: String, keyFile: String) throws(TLSSetupError)
    -> TLSContext
  {
    var status = stat()
    guard stat(keyFile, &status) == 0 else {
      throw TLSSetupError(
        "cannot read the key file \(keyFile): \(String(cString: strerror(errno)))")
    }
    let mode = status.st_mode & 0o777
    guard mode & 0o077 == 0 else {
      throw TLSSetupError(
        "the key file \(keyFile) may be read by others (mode \(String(mode, radix: 8))); "
          + "make it private with: chmod 600 \(keyFile)")
    }
    guard access(certificateFile, R_OK) == 0 else {
      throw TLSSetupError(
        "cannot read the certificate file \(certificateFile): \(String(cString: strerror(errno)))")
    }
    OpenSSLErrors.clear()
    guard let pointer = SSL_CTX_new(TLS_server_method()) else {
      throw TLSSetupError("OpenSSL could not make a TLS context: \(OpenSSLErrors.take())")
    }
    let context = TLSContext(pointer: pointer, isServer: true, caFile: nil)
    try context.setCommonOptions()
    guard SSL_CTX_use_certificate_chain_file(pointer, certificateFile) == 1 else {
      throw TLSSetupError(
        "the certificate file \(certificateFile) holds no PEM certificate "
          + "(\(OpenSSLErrors.take()))")
    }
    guard SSL_CTX_use_PrivateKey_file(pointer, keyFile, SSL_FILETYPE_PEM) == 1 else {
      throw TLSSetupError(
        "the key file \(keyFile) holds no PEM private key (\(OpenSSLErrors.take()))")
    }
    guard SSL_CTX_check_private_key(pointer) == 1 else {
      throw TLSSetupError(
        "the key in \(keyFile) does not belong to the certificate in \(certificateFile)")
    }
    susi_ssl_ctx_set_server_cache_id(pointer)
    SSL_CTX_set_alpn_select_cb(pointer, selectHTTP11, nil)
    return context
  }

  private func setCommonOptions() throws(TLSSetupError) {
    guard susi_ssl_ctx_set_min_tls12(pointer) == 1 else {
      throw TLSSetupError("OpenSSL refused TLS 1.2 as the lowest version")
    }
    susi_ssl_ctx_set_safe_options(pointer)
  }

  // MARK: - Client sessions

  /// The session saved for `key` (an origin), to resume on the next connection.
  func savedSession(for key: String) -> SavedSession? {
    sessions.withLock { $0[key] }
  }

  /// Keeps `session` for `key`, replacing the one before.
  func save(_ session: SavedSession, for key: String) {
    sessions.withLock { $0[key] = session }
  }
}

/// An `SSL_SESSION` kept to resume a later connection with an abbreviated handshake.
final class SavedSession: @unchecked Sendable {
  // Unchecked: an `SSL_SESSION` is reference counted by OpenSSL and only read once saved.
  let pointer: OpaquePointer

  init(pointer: OpaquePointer) { self.pointer = pointer }

  deinit { SSL_SESSION_free(pointer) }
}

/// The server's ALPN choice: `http/1.1` when the client offers it; otherwise no ALPN at all,
/// which leaves the client free to speak HTTP/1.1 anyway.
private func selectHTTP11(
  _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
  _ outLength: UnsafeMutablePointer<UInt8>?, _ input: UnsafePointer<UInt8>?, _ inputLength: UInt32,
  _ argument: UnsafeMutableRawPointer?
) -> Int32 {
  guard let input, let out, let outLength else { return SSL_TLSEXT_ERR_NOACK }
  let wanted = Array("http/1.1".utf8)
  var index = 0
  let count = Int(inputLength)
  while index < count {
    let length = Int(input[index])
    let start = index + 1
    guard start + length <= count else { break }
    if length == wanted.count
      && (0..<length).allSatisfy({ input[start + $0] == wanted[$0] })
    {
      out.pointee = input + start
      outLength.pointee = UInt8(length)
      return SSL_TLSEXT_ERR_OK
    }
    index = start + length
  }
  return SSL_TLSEXT_ERR_NOACK
}
