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
}
