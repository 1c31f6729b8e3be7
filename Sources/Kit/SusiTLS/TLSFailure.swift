/// Why a TLS connection could not be made, in terms a person can act on.
public struct TLSFailure: Error, Sendable, Equatable, CustomStringConvertible {
  /// The cause, as the one who fixes it sorts it.
  public enum Kind: String, Sendable, Equatable, CaseIterable {
    /// The server's certificate is past its end date.
    case certificateExpired
    /// The server's certificate starts later (or this machine's clock is behind).
    case certificateNotYetValid
    /// The certificate was issued by no authority this machine trusts.
    case unknownIssuer
    /// The certificate names other hosts than the one asked for.
    case hostMismatch
    /// The TLS negotiation failed for another reason (versions, ciphers, a broken peer).
    case handshakeFailed
    /// The peer does not speak TLS at all (plain HTTP on the port).
    case notTLS
  }

  public var kind: Kind
  /// What OpenSSL or the peer said, for the curious: never a secret.
  public var detail: String

  public init(_ kind: Kind, _ detail: String) {
    self.kind = kind
    self.detail = detail
  }

  public var description: String { detail.isEmpty ? kind.rawValue : "\(kind.rawValue): \(detail)" }
}

/// Why a TLS context could not be set up: a certificate or key file that is missing, unreadable
/// or not PEM. The message names the file.
public struct TLSSetupError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String

  public init(_ message: String) { self.message = message }

  public var description: String { message }
}
