/// What kind of failure a `RequestError` reports; the raw value is the `kind` in the log.
///
/// A kind this code does not name (from an older or newer susi) is kept as it was read, so a
/// log replays and is written back unchanged. Names are an external contract: never rename one.
public struct RequestErrorKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  public var description: String { rawValue }

  /// No connection: refused, unknown host, reset.
  public static let network = RequestErrorKind(rawValue: "network")
  /// No reply in time.
  public static let timeout = RequestErrorKind(rawValue: "timeout")
  /// A non-2xx reply; the error's `status` is set.
  public static let http = RequestErrorKind(rawValue: "http")
  /// A 401 (or an expired token) on an endpoint that needs a logged-in user.
  public static let unauthorized = RequestErrorKind(rawValue: "unauthorized")
  /// `accepted:false` on HTTP 200, with the server's message.
  public static let server = RequestErrorKind(rawValue: "server")
  /// Not JSON, the wrong shape, or HTML where JSON was expected.
  public static let badResponse = RequestErrorKind(rawValue: "badResponse")
  /// A body over the size limit.
  public static let tooLarge = RequestErrorKind(rawValue: "tooLarge")
  /// The request was cancelled.
  public static let cancelled = RequestErrorKind(rawValue: "cancelled")
  /// The request was cancelled because a newer one asks for the same thing.
  public static let superseded = RequestErrorKind(rawValue: "superseded")
  /// Local disk trouble (credentials, image cache).
  public static let io = RequestErrorKind(rawValue: "io")
  /// No token for a call that needs one.
  public static let notLoggedIn = RequestErrorKind(rawValue: "notLoggedIn")
  /// The server does not know the skill the request names.
  public static let notFound = RequestErrorKind(rawValue: "notFound")
  /// susi stopped before the answer arrived; the request was not re-sent.
  public static let interrupted = RequestErrorKind(rawValue: "interrupted")
  /// A planned answer was due too long ago to be worth delivering.
  public static let expired = RequestErrorKind(rawValue: "expired")
  /// The server's TLS certificate is past its end date.
  public static let certificateExpired = RequestErrorKind(rawValue: "certificateExpired")
  /// The server's TLS certificate is not valid yet (or the clock is behind).
  public static let certificateNotYetValid = RequestErrorKind(rawValue: "certificateNotYetValid")
  /// The server's TLS certificate comes from an authority this machine does not trust.
  public static let certificateUnknownIssuer = RequestErrorKind(
    rawValue: "certificateUnknownIssuer")
  /// The server's TLS certificate names other hosts than the one asked for.
  public static let certificateHostMismatch = RequestErrorKind(rawValue: "certificateHostMismatch")
  /// The TLS handshake failed for another reason (versions, ciphers, a broken server).
  public static let tlsHandshakeFailed = RequestErrorKind(rawValue: "tlsHandshakeFailed")
  /// The server does not speak TLS on the port (plain HTTP behind an `https://` URL).
  public static let tlsNotSpoken = RequestErrorKind(rawValue: "tlsNotSpoken")

  /// Whether the kind is one of the TLS failures (a certificate refused, a failed handshake).
  public var isTLSFailure: Bool {
    [
      Self.certificateExpired, .certificateNotYetValid, .certificateUnknownIssuer,
      .certificateHostMismatch, .tlsHandshakeFailed, .tlsNotSpoken,
    ].contains(self)
  }
}
