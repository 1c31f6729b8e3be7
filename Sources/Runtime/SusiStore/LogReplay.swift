public import SusiCore
public import SusiEventLog
import SusiJSON

/// Reads a log from the start and folds it through the reducer, one record at a time: memory
/// stays flat whatever the log's length (only the state grows).
public enum LogReplay {
  /// Why a log could not be replayed to its end.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    public var path: String
    /// The log line at fault, when there is one.
    public var line: Int?
    public var message: String
    /// True when the log itself is damaged (as opposed to unreadable).
    public var isCorruption: Bool

    public var description: String {
      if let line { "\(path):\(line): \(message)" } else { "\(path): \(message)" }
    }
  }

  /// Replays the log at `path` into `recovered`, calling `visit` after each event with the event,
  /// the effects it asked for and the state after it. Stops after `until` when given. Returns what
  /// the reader noticed at the end (a torn final record is reported, not applied).
  ///
  /// With `checkpoint` (a snapshot's, whose book `recovered` holds), only the records after it are
  /// read; the log must hold the checkpoint's record where it says.
  @discardableResult
  public static func run(
    path: String, into recovered: inout Recovered, until: Int? = nil,
    after checkpoint: EventLogCheckpoint? = nil,
    visit: (Event, [Effect], State) throws -> Void
  ) throws(Failure) -> EventLogTornTail? {
    try run(
      path: path, into: &recovered, until: until, after: checkpoint, visiting: true, visit)
  }

  /// Replays the log at `path` into `recovered`, as `run(path:into:until:after:visit:)` does
  /// with nobody to visit.
  @discardableResult
  public static func run(
    path: String, into recovered: inout Recovered, until: Int? = nil,
    after checkpoint: EventLogCheckpoint? = nil
  ) throws(Failure) -> EventLogTornTail? {
    try run(
      path: path, into: &recovered, until: until, after: checkpoint, visiting: false
    ) { _, _, _ in }
  }

  private static func run(
    path: String, into recovered: inout Recovered, until: Int?,
    after checkpoint: EventLogCheckpoint?, visiting: Bool,
    _ visit: (Event, [Effect], State) throws -> Void
  ) throws(Failure) -> EventLogTornTail? {
    let reader: EventLogReader
    do {
      if let checkpoint {
        reader = try EventLogReader(path: path, after: checkpoint)
      } else {
        reader = try EventLogReader(path: path, firstSeq: nil)
      }
    } catch {
      throw Failure(
        path: path, line: error.line, message: error.message, isCorruption: error.isCorruption)
    }
    defer { reader.close() }
    // The same answers, skills and languages come back record after record.
    let strings = JSONStringCache()
    do {
      try reader.forEachRecord { record in
        if let until, record.seq > until { throw StopReplay() }
        let event: Event
        do {
          event = try Event.read(record.object, strings: strings)
        } catch {
          throw Failure(path: path, line: record.line, message: "\(error)", isCorruption: true)
        }
        guard event.seq == record.seq else {
          throw Failure(
            path: path, line: record.line,
            message: "the record's seq \(event.seq) does not match its frame (\(record.seq))",
            isCorruption: true)
        }
        // Without a visitor nothing reads the state between events: handing it to one would
        // copy it (a retain of each of its members) per event.
        guard visiting else {
          recovered.apply(event)
          return
        }
        let effects = recovered.apply(event).effects
        try visit(event, effects, recovered.state)
      }
    } catch is StopReplay {
      return nil
    } catch let failure as Failure {
      throw failure
    } catch let error as EventLogError {
      throw Failure(
        path: path, line: error.line, message: error.message, isCorruption: error.isCorruption)
    } catch {
      throw Failure(path: path, line: nil, message: "\(error)", isCorruption: false)
    }
    return reader.tornTail
  }

  private struct StopReplay: Error {}
}
