import SusiJSON
import SusiStore

/// One event as the webhook frontend passes it on: the exact log line, plus the few envelope
/// fields it needs to route it (seq, type, cause).
public struct FeedEvent: Sendable, Equatable {
  /// The event's place in the log.
  public var seq: Int
  /// The action's type name.
  public var type: String
  /// For results: the seq of the event that asked for it.
  public var cause: Int?
  /// The log line without its newline; what `/events`, the event stream and deliveries send.
  public var line: [UInt8]

  /// An event from its parts.
  public init(seq: Int, type: String, cause: Int?, line: [UInt8]) {
    self.seq = seq
    self.type = type
    self.cause = cause
    self.line = line
  }

  /// The event as the store published it.
  public init(_ published: PublishedEvent) {
    self.init(
      seq: published.event.seq, type: published.event.action.typeName, cause: published.event.cause,
      line: published.line)
  }

  /// Reads the envelope fields of a log line.
  public init(line: [UInt8]) throws(HistoryError) {
    do {
      let r = try FieldReader(try JSONParser.parse(line))
      self.init(
        seq: try r.int("seq"), type: try r.string("type"), cause: try r.optionalInt("cause"),
        line: line)
    } catch {
      throw HistoryError("a log line is not an event: \(error)")
    }
  }
}

/// Why past events could not be read.
public struct HistoryError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public var message: String
  /// An error saying `message`.
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// Past events, read from where they are kept (the log file), not from memory.
public protocol EventHistory: Sendable {
  /// The events with seq greater than `seq`, in order, at most `limit` of them.
  func events(after seq: Int, limit: Int) throws(HistoryError) -> [FeedEvent]
}
