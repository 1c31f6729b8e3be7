import COpenSSL
import Glibc

/// One TLS connection as a state machine without I/O: the caller feeds it the bytes that came
/// from the socket (`received`), asks it to progress (`handshake`, `read`, `write`), and sends
/// what it produced (`takeOutput`). It never touches a socket, so it runs the same under a
/// blocking `poll` loop (the client) and under epoll (the server), and waiting costs nothing.
///
/// ```swift
/// let tls = try TLSSession(client: context, host: "example.org")
/// while try tls.handshake() == .needsInput {
///   send(tls.takeOutput()); tls.received(recv())
/// }
/// ```
///
/// Used by one holder at a time (`@unchecked Sendable`: a connection moves between threads
/// through a lock, never used by two at once).
public final class TLSSession: @unchecked Sendable {
  /// Where a handshake stands.
  public enum Progress: Equatable, Sendable {
    /// Done: application data may flow.
    case complete
    /// More bytes from the peer are needed (send `takeOutput()` first).
    case needsInput
  }

  /// What a `read` gave.
  public enum ReadResult: Equatable, Sendable {
    /// That many plaintext bytes were put into the buffer.
    case bytes(Int)
    /// Nothing decrypted yet: more bytes from the peer are needed.
    case needsInput
    /// The peer closed the TLS stream (or the TCP connection).
    case closed
  }

  private let ssl: OpaquePointer
  /// Ciphertext from the peer, fed by `received`.
  private let input: OpaquePointer
  /// Ciphertext for the peer, drained by `takeOutput`.
  private let output: OpaquePointer
  private let context: TLSContext
  /// The name the client asked for (certificate check and messages), nil on a server.
  public let host: String?
  private let sessionKey: String?
  private var sawFirstByte = false
  private var savedSession = false
  /// Whether the handshake has finished.
  public private(set) var isEstablished = false

  /// A client connection to `host` (a DNS name or an IP literal): sends it as SNI (names
  /// only), checks the certificate against it, and resumes the session saved under
  /// `sessionKey` (default: the host) when there is one.
  public convenience init(client context: TLSContext, host: String, sessionKey: String? = nil)
    throws(TLSSetupError)
  {
    try self.init(context: context, host: host, sessionKey: sessionKey ?? host)
  }

  /// A server connection made from `context`.
  public convenience init(server context: TLSContext) throws(TLSSetupError) {
    try self.init(context: context, host: nil, sessionKey: nil)
  }

  private init(context: TLSContext, host: String?, sessionKey: String?) throws(TLSSetupError) {
    OpenSSLErrors.clear()
    guard let ssl = SSL_new(context.pointer) else {
      throw TLSSetupError("OpenSSL could not make a TLS connection: \(OpenSSLErrors.take())")
    }
    guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
      SSL_free(ssl)
      throw TLSSetupError("OpenSSL could not make its buffers")
    }
    // An empty input buffer means "wait for more", not the end of the stream.
    susi_bio_set_mem_eof_return(input, -1)
    SSL_set_bio(ssl, input, output)
    self.ssl = ssl
    self.input = input
    self.output = output
    self.context = context
    self.host = host
    self.sessionKey = sessionKey
    if let host {
      SSL_set_connect_state(ssl)
      if Self.isIPLiteral(host) {
        _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
      } else {
        _ = susi_ssl_set_sni(ssl, host)
        _ = X509_VERIFY_PARAM_set1_host(SSL_get0_param(ssl), host, 0)
        X509_VERIFY_PARAM_set_hostflags(
          SSL_get0_param(ssl), UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
      }
      if let sessionKey, let saved = context.savedSession(for: sessionKey) {
        _ = SSL_set_session(ssl, saved.pointer)
      }
    } else {
      SSL_set_accept_state(ssl)
    }
  }

  deinit {
    // Freed without a close_notify exchange, OpenSSL would mark the session unresumable; a
    // session is only saved after a whole reply, so that is no sign of an attack here.
    SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN)
    SSL_free(ssl)
  }

  private static func isIPLiteral(_ host: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
  }

  // MARK: - Bytes in and out

  /// Ciphertext that arrived from the peer. The first byte tells TLS from anything else: a peer
  /// that answers in plain text fails with `.notTLS`.
  public func received(_ bytes: UnsafeRawBufferPointer) throws(TLSFailure) {
    guard !bytes.isEmpty else { return }
    if !sawFirstByte {
      sawFirstByte = true
      // A TLS record starts with its content type: 20 to 23 (22 for a handshake).
      guard (20...23).contains(bytes[0]) else {
        throw TLSFailure(
          .notTLS,
          host == nil
            ? "the client does not speak TLS"
            : "the server answered in plain text, not TLS")
      }
    }
    _ = BIO_write(input, bytes.baseAddress, Int32(bytes.count))
  }

  /// The convenience form of `received(_:)` for an array.
  public func received(_ bytes: [UInt8]) throws(TLSFailure) {
    let outcome = bytes.withUnsafeBytes { raw in
      Result { () throws(TLSFailure) in try received(raw) }
    }
    try outcome.get()
  }

  /// The peer closed its side of the TCP connection: no more input will come.
  public func receivedEnd() {
    susi_bio_set_mem_eof_return(input, 0)
  }

  /// Bytes waiting to be sent to the peer.
  public var pendingOutput: Int { Int(BIO_ctrl_pending(output)) }

  /// Takes everything waiting to be sent to the peer.
  public func takeOutput() -> [UInt8] {
    var bytes: [UInt8] = []
    takeOutput(appendingTo: &bytes)
    return bytes
  }

  /// Moves everything waiting to be sent to the end of `bytes`.
  public func takeOutput(appendingTo bytes: inout [UInt8]) {
    let count = pendingOutput
    guard count > 0 else { return }
    let start = bytes.count
    bytes.append(contentsOf: repeatElement(0, count: count))
    let read = bytes.withUnsafeMutableBytes { raw in
      BIO_read(output, raw.baseAddress! + start, Int32(count))
    }
    bytes.removeLast(count - max(0, Int(read)))
  }

  // MARK: - Progress

  /// Advances the handshake with the bytes received so far.
  public func handshake() throws(TLSFailure) -> Progress {
    if isEstablished { return .complete }
    OpenSSLErrors.clear()
    let result = SSL_do_handshake(ssl)
    if result == 1 {
      isEstablished = true
      return .complete
    }
    let error = SSL_get_error(ssl, result)
    switch error {
    case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
      return .needsInput
    case SSL_ERROR_SSL:
      throw classify(reason: OpenSSLErrors.take())
    default:
      OpenSSLErrors.clear()
      throw TLSFailure(
        .handshakeFailed,
        host == nil
          ? "the client closed the connection during the TLS handshake"
          : "the server closed the connection during the TLS handshake")
    }
  }

  /// Decrypts what has arrived into `buffer`.
  public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSFailure) -> ReadResult {
    OpenSSLErrors.clear()
    var count = 0
    if SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count) == 1 {
      isEstablished = true
      return .bytes(count)
    }
    let error = SSL_get_error(ssl, 0)
    switch error {
    case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
      return .needsInput
    case SSL_ERROR_ZERO_RETURN:
      return .closed
    case SSL_ERROR_SSL:
      let reason = OpenSSLErrors.take()
      if !isEstablished { throw classify(reason: reason) }
      throw TLSFailure(.handshakeFailed, "the TLS stream broke: \(reason)")
    default:
      OpenSSLErrors.clear()
      return .closed
    }
  }

  /// Encrypts all of `bytes` into the output (`takeOutput`). Call after the handshake.
  public func write(_ bytes: UnsafeRawBufferPointer) throws(TLSFailure) {
    guard !bytes.isEmpty else { return }
    OpenSSLErrors.clear()
    var written = 0
    guard SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &written) == 1,
      written == bytes.count
    else {
      throw TLSFailure(.handshakeFailed, "TLS could not encrypt: \(OpenSSLErrors.take())")
    }
  }

  /// The convenience form of `write(_:)` for an array.
  public func write(_ bytes: [UInt8]) throws(TLSFailure) {
    let outcome = bytes.withUnsafeBytes { raw in
      Result { () throws(TLSFailure) in try write(raw) }
    }
    try outcome.get()
  }

  /// Queues a `close_notify` alert for the peer (send `takeOutput()` before closing).
  public func close() {
    OpenSSLErrors.clear()
    if isEstablished { _ = SSL_shutdown(ssl) }
    OpenSSLErrors.clear()
  }

  // MARK: - What was negotiated

  /// Whether this connection resumed a saved session (an abbreviated handshake).
  public var resumedSession: Bool { SSL_session_reused(ssl) == 1 }

  /// The ALPN protocol agreed (`http/1.1`), or nil.
  public var negotiatedProtocol: String? {
    var data: UnsafePointer<UInt8>?
    var length: UInt32 = 0
    SSL_get0_alpn_selected(ssl, &data, &length)
    guard let data, length > 0 else { return nil }
    return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
  }

  /// The TLS version agreed (`TLSv1.3`).
  public var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

  /// Saves the client's session for the next connection under the same key, once it can be
  /// resumed (with TLS 1.3 that is after the server's ticket arrived, so after the first reply).
  public func saveSessionForResumption() {
    guard host != nil, !savedSession, isEstablished, let sessionKey else { return }
    guard let session = SSL_get1_session(ssl) else { return }
    guard SSL_SESSION_is_resumable(session) == 1 else {
      SSL_SESSION_free(session)
      return
    }
    savedSession = true
    context.save(SavedSession(pointer: session), for: sessionKey)
  }

  // MARK: - Failures

  /// Names the cause of a failed handshake: the certificate check's verdict when there is one.
  private func classify(reason: String) -> TLSFailure {
    let verdict = Int32(truncatingIfNeeded: SSL_get_verify_result(ssl))
    let said = String(cString: X509_verify_cert_error_string(Int(verdict)))
    switch verdict {
    case X509_V_OK:
      return TLSFailure(.handshakeFailed, reason.isEmpty ? "the TLS handshake failed" : reason)
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return TLSFailure(.certificateExpired, said)
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return TLSFailure(.certificateNotYetValid, said)
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
      X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
      X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED:
      return TLSFailure(.unknownIssuer, said)
    case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
      return TLSFailure(.hostMismatch, said)
    default:
      return TLSFailure(.handshakeFailed, "the certificate was refused: \(said)")
    }
  }
}
