public import SusiCore

/// An event as the store logged it: the typed event and the exact bytes of its log line
/// (without the trailing newline). Frontends that print events (JSON lines, the webhook) send
/// these bytes, so what a program reads is what the log holds.
public struct PublishedEvent: Sendable {
  public var event: Event
  public var line: [UInt8]
  /// True for an event another process logged to a shared log (this process did not send it
  /// and does not run its effects).
  public var byAnotherProcess: Bool
  public init(event: Event, line: [UInt8], byAnotherProcess: Bool = false) {
    self.event = event
    self.line = line
    self.byAnotherProcess = byAnotherProcess
  }
  public var seq: Int { event.seq }
}
