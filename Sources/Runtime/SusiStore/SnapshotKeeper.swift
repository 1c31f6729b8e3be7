import Dispatch
public import SusiEventLog
import Synchronization

/// Writes a snapshot every `every` events and at a clean stop, on a queue of its own, so appends
/// never wait for one: the store hands over a copy of its book (cheap: the state's storage is
/// shared until the store changes it), and the record the snapshot ends at is read back from the
/// log (it never changes once written).
public final class SnapshotKeeper: Sendable {
  /// How many events apart snapshots are written unless told otherwise.
  public static let defaultInterval = 10_000

  public let files: SnapshotFiles
  public let every: Int
  private let writer: EventLogWriter
  /// `seq + lineOffset` is the line a record is on (the log may start at a seq other than 1).
  private let lineOffset: Int
  private let queue = DispatchQueue(label: "susi.snapshots")
  /// The seq of the newest snapshot written or loaded, and whether one is being written now.
  private let progress: Mutex<(newest: Int, writing: Bool)>
  private let failures = Mutex<[String]>([])

  public init(files: SnapshotFiles, every: Int, writer: EventLogWriter, newestSeq: Int) {
    self.files = files
    self.every = every
    self.writer = writer
    lineOffset = writer.recovery.recordCount - (writer.recovery.lastSeq ?? 0)
    progress = Mutex((newestSeq, false))
  }

  /// Starts a snapshot of `book` in the background, unless one is still being written (the next
  /// one due will cover these events too). Call inside the store's turn, right after the event
  /// `book.lastSeq` was appended, so the log's length is the end of that event's record.
  func eventApplied(_ book: Recovered) {
    guard every > 0, book.lastSeq % every == 0 else { return }
    let offset = writer.length
    let start = progress.withLock { progress -> Bool in
      guard !progress.writing, progress.newest < book.lastSeq else { return false }
      progress.writing = true
      return true
    }
    guard start else { return }
    queue.async { [self] in
      write(book, offset: offset)
      progress.withLock { $0.writing = false }
    }
  }

  /// Writes the final snapshot of a clean stop (after the store closed), waiting for it and for
  /// any snapshot still being written.
  public func finish(_ book: Recovered) {
    queue.sync {
      guard every > 0, book.lastSeq > progress.withLock({ $0.newest }) else { return }
      write(book, offset: writer.length)
    }
  }

  /// Why snapshots could not be written, for the user to hear about (appends go on regardless).
  public var problems: [String] { failures.withLock { $0 } }

  private func write(_ book: Recovered, offset: Int) {
    do {
      let checkpoint = try EventLogCheckpoint.ofRecord(
        endingAt: offset, inLogAt: files.logPath, seq: book.lastSeq,
        line: book.lastSeq + lineOffset)
      try files.write(Snapshot(checkpoint: checkpoint, recovered: book))
      progress.withLock { $0.newest = max($0.newest, book.lastSeq) }
    } catch {
      failures.withLock { $0.append("cannot write a snapshot at seq \(book.lastSeq): \(error)") }
    }
  }
}
