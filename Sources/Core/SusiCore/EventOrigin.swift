/// Who sent an event; the raw value is the `origin` in the log.
///
/// An origin this code does not name (from an older or newer susi) is kept as it was read, so a
/// log replays and is written back unchanged.
public struct EventOrigin: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: String
  /// The id of the HTTP request that carried the event (its `X-Request-Id`, the `request` of its
  /// line in the operators' log), when it came in one; the log's optional `requestId`.
  public var requestID: String?

  public init(rawValue: String) { self.rawValue = rawValue }

  public init(rawValue: String, requestID: String?) {
    self.rawValue = rawValue
    self.requestID = requestID
  }

  /// The sender, and the request that carried the event when known: `webhook[5c1e9a0f-17]`.
  public var description: String { requestID.map { "\(rawValue)[\($0)]" } ?? rawValue }

  /// This sender, for an event carried by the request with id `requestID`.
  public func carried(by requestID: String?) -> EventOrigin {
    EventOrigin(rawValue: rawValue, requestID: requestID)
  }

  /// Whether `other` is the same sender, whichever requests carried the two.
  public func isSender(_ other: EventOrigin) -> Bool { rawValue == other.rawValue }

  public static func == (a: EventOrigin, b: EventOrigin) -> Bool {
    a.rawValue == b.rawValue && a.requestID == b.requestID
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(rawValue)
    hasher.combine(requestID)
  }

  /// The text frontend (`susi chat`, `susi ask`, …) and `susi serve keys`.
  public static let cli = EventOrigin(rawValue: "cli")
  /// `susi jsonl`.
  public static let jsonl = EventOrigin(rawValue: "jsonl")
  /// `susi serve`: intents posted to `/actions` and administration over HTTP.
  public static let webhook = EventOrigin(rawValue: "webhook")
  /// `susi web`.
  public static let web = EventOrigin(rawValue: "web")
  /// Results, from the effects runner.
  public static let runner = EventOrigin(rawValue: "runner")
  /// Bookkeeping by the store on start-up (requests closed as interrupted or expired).
  public static let store = EventOrigin(rawValue: "store")
}
