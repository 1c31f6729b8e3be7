import SusiEventLog
import Synchronization

/// Reads past events back from the log file, through `EventLogReader`, so every line is checked
/// (framing, checksum, seq order) exactly as at start-up.
///
/// To find a seq without reading the whole file again, it remembers a checkpoint after every
/// 128th record as it passes it: memory stays small however long the log grows, and a reader
/// asking for recent events starts near them.
public final class LogHistory: EventHistory {
  /// The log file.
  public let path: String
  private let checkpoints = Mutex<[Int: EventLogCheckpoint]>([:])
  private static let stride = 128

  private struct Enough: Error {}

  /// Reads the log at `path`; nothing is opened until the first read.
  public init(path: String) { self.path = path }

  public func events(after seq: Int, limit: Int) throws(HistoryError) -> [PublishedEvent] {
    guard limit > 0 else { return [] }
    var out: [PublishedEvent] = []
    do {
      let reader =
        if let start = checkpoint(atOrBefore: seq) {
          try EventLogReader(path: path, after: start)
        } else {
          try EventLogReader(path: path, firstSeq: nil)
        }
      defer { reader.close() }
      try reader.forEachRecord { record in
        let remembered = record.seq % Self.stride == 0
        guard remembered || record.seq > seq else { return }
        let line = record.logLine
        if remembered {
          remember(
            EventLogCheckpoint(
              seq: record.seq, lineNumber: record.line, offset: record.offset + line.count + 1,
              line: line))
        }
        guard record.seq > seq else { return }
        out.append(try PublishedEvent(line: line))
        if out.count == limit { throw Enough() }
      }
    } catch is Enough {
    } catch let error as HistoryError {
      throw error
    } catch {
      throw HistoryError("cannot read the log: \(error)")
    }
    return out
  }

  /// The latest checkpoint at or before `seq`.
  private func checkpoint(atOrBefore seq: Int) -> EventLogCheckpoint? {
    checkpoints.withLock { points in
      var slot = seq / Self.stride
      while slot > 0 {
        if let point = points[slot] { return point }
        slot -= 1
      }
      return nil
    }
  }

  private func remember(_ point: EventLogCheckpoint) {
    checkpoints.withLock { $0[point.seq / Self.stride] = point }
  }
}
