/// A password or token. Every way of turning it into text — printing, interpolation, JSON in the
/// log or on stdout — gives `[redacted]`; only `reveal()` gives the value, and only the effects
/// runner calls it, to build the one request that needs it.
///
/// This type is the single choke point through which secrets are kept out of the event log.
public struct Secret: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
  /// What a secret looks like everywhere except inside the request that uses it.
  public static let redactedText = "[redacted]"

  private let value: String

  public init(_ value: String) { self.value = value }

  /// The secret itself. Use it only to build the request that sends it.
  public func reveal() -> String { value }

  /// True when this secret was read back from a log (its value was never stored).
  public var isRedacted: Bool { value == Self.redactedText }

  public var isEmpty: Bool { value.isEmpty }

  public var description: String { Self.redactedText }
  public var debugDescription: String { Self.redactedText }
}
