import SusiEventLog
import Synchronization

/// Reads past events back from the log file, through `EventLogReader`, so every line is checked
/// (framing, checksum, seq order) exactly as at start-up.
///
/// To find a seq without reading the whole file again, it remembers where every 128th record
/// starts as it passes it: memory stays small however long the log grows, and a reader asking
/// for recent events starts near them.
public final class LogHistory: EventHistory {
  /// The log file.
  public let path: String
  private let checkpoints = Mutex<[Int: Checkpoint]>([:])
  private static let stride = 128

  private struct Enough: Error {}

  private struct Checkpoint {
    var offset: Int
    var line: Int
  }

  /// Reads the log at `path`; nothing is opened until the first read.
  public init(path: String) { self.path = path }

  public func events(after seq: Int, limit: Int) throws(HistoryError) -> [PublishedEvent] {
    guard limit > 0 else { return [] }
    let (startSeq, start) = checkpoint(atOrBefore: seq + 1)
    var out: [PublishedEvent] = []
    do {
      let reader =
        if let start {
          try EventLogReader(path: path, offset: start.offset, line: start.line, seq: startSeq)
        } else {
          try EventLogReader(path: path, firstSeq: nil)
        }
      defer { reader.close() }
      try reader.forEachRecord { record in
        if record.seq % Self.stride == 0 {
          remember(record.seq, Checkpoint(offset: record.offset, line: record.line))
        }
        guard record.seq > seq else { return }
        out.append(try PublishedEvent(line: record.logLine))
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

  /// The latest remembered record at or before `seq`, with its seq.
  private func checkpoint(atOrBefore seq: Int) -> (Int, Checkpoint?) {
    checkpoints.withLock { points in
      var slot = seq / Self.stride
      while slot > 0 {
        if let point = points[slot] { return (slot * Self.stride, point) }
        slot -= 1
      }
      return (0, nil)
    }
  }

  private func remember(_ seq: Int, _ point: Checkpoint) {
    checkpoints.withLock { $0[seq / Self.stride] = point }
  }
}
