public import SusiTLS

extension TLSFailure {
  /// The cause and the next step, for a person: what `requestFailed` says.
  public var sentence: String {
    switch kind {
    case .certificateExpired:
      "the server's certificate has expired (\(detail)); its operator must renew it, or, if this"
        + " machine's clock is wrong, correct the clock"
    case .certificateNotYetValid:
      "the server's certificate is not valid yet (\(detail)); check this machine's date and time"
    case .unknownIssuer:
      "the server's certificate was issued by an authority this machine does not trust"
        + " (\(detail)); for a private CA pass its certificate with --ca-file FILE or"
        + " SSL_CERT_FILE=FILE, or add it to the system store (update-ca-certificates)"
    case .hostMismatch:
      "the server's certificate is for another host name (\(detail)); use the name the"
        + " certificate was issued for, or ask its operator for one that names this host"
    case .handshakeFailed:
      "the TLS handshake failed (\(detail)); the server must speak TLS 1.2 or newer with a"
        + " current cipher"
    case .notTLS:
      "the server does not speak TLS on this port (\(detail)); use http:// instead of https://,"
        + " or check the port"
    }
  }
}
