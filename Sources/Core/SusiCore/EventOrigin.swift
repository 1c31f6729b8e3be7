/// Who sent an event; the raw value is the `origin` in the log.
///
/// An origin this code does not name (from an older or newer susi) is kept as it was read, so a
/// log replays and is written back unchanged.
public struct EventOrigin: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  public var description: String { rawValue }

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
