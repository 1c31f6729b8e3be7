import SusiClock
public import SusiCore
import SusiStore

/// One `GET /events/stream` client: the events after `after` as server-sent events
/// (`id: SEQ` and `data: <log line>`), first those already logged, then each new one as it is
/// logged.
///
/// It reads from the feed by position, so the replayed part and the live part meet without a
/// gap or a repeat, and a client that reconnects with `Last-Event-ID` resumes exactly.
public struct EventStreamSession: Sendable {
  let feed: EventFeed
  var clock: any TimeSource = SystemTimeSource()
  /// The seq after which the stream starts; nil = with the next event logged.
  public let after: Int?
  /// Event types to send; empty = all.
  public var types: Set<ActionType> = []
  /// How long an idle stream waits before sending a comment line (ms).
  var heartbeatInterval: Int64 = 15_000
  /// How long a stream may send no event before it is closed (ms); the client reconnects with
  /// `Last-Event-ID` and misses nothing.
  var idleLimit: Int64 = 30 * 60_000
  /// Whether the client may still read; checked before each write, so a stream ends soon
  /// after its key is revoked.
  var authorized: @Sendable () -> Bool = { true }

  /// Sends events through `write` until the feed closes, the task is cancelled, or `write`
  /// throws (the client went away).
  public func run(_ write: @Sendable ([UInt8]) async throws -> Void) async throws {
    var events = feed.follow(after: after ?? feed.lastSeq).makeAsyncIterator()
    let (clock, interval) = (clock, heartbeatInterval)
    let heartbeat = EventStream.Waiting.until { try? await clock.sleep(milliseconds: interval) }
    var idle: Int64 = 0
    try await write(Array("retry: 2000\n\n".utf8))
    while authorized(), let batch = try await events.nextBatch(limit: 256, waiting: heartbeat) {
      var chunk: [UInt8] = []
      for event in batch where types.isEmpty || types.contains(event.event.action.type) {
        chunk.append(contentsOf: "id: \(event.seq)\ndata: ".utf8)
        chunk.append(contentsOf: event.line)
        chunk.append(contentsOf: [0x0A, 0x0A])
      }
      guard authorized() else { return }
      if !chunk.isEmpty {
        idle = 0
        try await write(chunk)
      } else if batch.isEmpty {
        idle += heartbeatInterval
        if idle >= idleLimit { return }
        try await write(Array(": keep-alive\n\n".utf8))
      }
    }
  }
}
