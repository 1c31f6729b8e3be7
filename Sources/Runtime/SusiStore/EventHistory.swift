public import SusiCore
import SusiEventLog

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
  func events(after seq: Int, limit: Int) throws(HistoryError) -> [PublishedEvent]
}

extension PublishedEvent {
  /// Decodes a log line (as the log holds it, without its newline) into the event it records.
  public init(line: [UInt8]) throws(HistoryError) {
    do {
      self.init(event: try Event.read(logLine: line), line: line)
    } catch {
      throw HistoryError("a log line is not an event: \(error)")
    }
  }
}

extension Event {
  /// The event a log line records (as the log holds it, without its newline, its checksum
  /// checked by whoever read it), read straight from its bytes by the record reader.
  public static func read(logLine line: [UInt8]) throws -> Event {
    try EventLogWriter.object(inLine: line).withUnsafeBytes { try Event.read($0) }
  }
}

/// The events a `MemoryEventSink` holds, for tests and for runs without a log file.
public final class MemoryEventHistory: EventHistory {
  private let sink: MemoryEventSink

  /// Reads the lines `sink` holds.
  public init(_ sink: MemoryEventSink) { self.sink = sink }

  public func events(after seq: Int, limit: Int) throws(HistoryError) -> [PublishedEvent] {
    var out: [PublishedEvent] = []
    let lines = sink.lines
    // Seqs start at 1 and rise by one, so the line of `seq + 1` is at index `seq` when the sink
    // holds the whole log; fall back to a scan when it does not.
    var start = 0
    if seq < lines.count, let first = try? PublishedEvent(line: lines[seq]), first.seq == seq + 1 {
      start = seq
    }
    for line in lines[start...] {
      let event = try PublishedEvent(line: line)
      guard event.seq > seq else { continue }
      out.append(event)
      if out.count == limit { break }
    }
    return out
  }
}
