public import SusiCore

/// How a JSON-lines session behaves (the `susi jsonl` flags).
public struct JSONLinesOptions: Sendable, Equatable {
  /// At the end of input (or on SIGTERM), how long to wait for requests still in flight, in
  /// seconds.
  public var drainTimeout: Double
  /// Whether to wait for requests in flight at the end of input (`--no-wait` turns it off).
  public var waitForEffects: Bool
  /// Whether to print the current state as the first line (`--replay-first`).
  public var replayFirst: Bool
  /// The `origin` stamped on every event this session sends.
  public var origin: EventOrigin
  /// The longest input line accepted, in bytes, not counting the line end.
  public var maximumLineLength: Int
  /// Whether access-control intents are taken (`--allow-admin`); they are recorded as done by
  /// `local`, the person at the machine, whatever the line says.
  public var allowsAdministration: Bool

  /// The default limit on an input line: 1 MiB.
  public static let defaultMaximumLineLength = 1 << 20

  public init(
    drainTimeout: Double = 30, waitForEffects: Bool = true, replayFirst: Bool = false,
    origin: EventOrigin = .jsonl,
    maximumLineLength: Int = JSONLinesOptions.defaultMaximumLineLength,
    allowsAdministration: Bool = false
  ) {
    self.drainTimeout = drainTimeout
    self.waitForEffects = waitForEffects
    self.replayFirst = replayFirst
    self.origin = origin
    self.maximumLineLength = maximumLineLength
    self.allowsAdministration = allowsAdministration
  }
}
