import Dispatch
public import SusiEventLog
import Synchronization

/// Where a `SnapshotKeeper` writes its snapshots: files beside a log file (`SnapshotFiles`), or
/// a table beside a log in a database.
public protocol SnapshotDestination: Sendable {
  /// Where the log ends now: read inside the store's turn right after an append (a log file's
  /// length; a database has no use for it).
  var logEnd: Int { get }
  /// Writes the snapshot of `book`, whose last event's record is `line` (nil at a clean stop,
  /// when every event the store applied is in the log) and ended the log at `end`. Runs on the
  /// keeper's queue, never in the store's turn.
  func write(_ book: Recovered, line: [UInt8]?, end: Int) throws
}

/// Writes a snapshot every `every` events (and at a clean stop, when as many are not covered), on
/// a queue of its own, so appends never wait for one: the store hands over a copy of its book
/// (cheap: the state's storage is shared until the store changes it), and the destination names
/// the record the snapshot ends at (a file log's record is read back from the log: it never
/// changes once written).
public final class SnapshotKeeper: Sendable {
  /// How many events apart snapshots are written unless told otherwise.
  public static let defaultInterval = 10_000

  public let destination: any SnapshotDestination
  public let every: Int
  private let queue = DispatchQueue(label: "susi.snapshots")
  /// The seq of the newest snapshot written or loaded, and whether one is being written now.
  private let progress: Mutex<(newest: Int, writing: Bool)>
  private let failures = Mutex<[String]>([])

  /// A keeper writing snapshot files beside the log `writer` appends to.
  public convenience init(files: SnapshotFiles, every: Int, writer: EventLogWriter, newestSeq: Int)
  {
    self.init(
      destination: FileSnapshots(files: files, writer: writer), every: every,
      newestSeq: newestSeq)
  }

  /// A keeper writing to `destination` every `every` events (0: never) after `newestSeq`, the
  /// snapshot the start began from.
  public init(destination: any SnapshotDestination, every: Int, newestSeq: Int) {
    self.destination = destination
    self.every = every
    progress = Mutex((newestSeq, false))
  }

  /// Starts a snapshot of `book` in the background, unless one is still being written (the next
  /// one due will cover these events too). Call inside the store's turn, right after the event
  /// `book.lastSeq` was appended as `line`, so the log's end is the end of that event's record.
  func eventApplied(_ book: Recovered, line: [UInt8]) {
    guard isDue(afterSeq: book.lastSeq) else { return }
    let end = destination.logEnd
    let start = progress.withLock { progress -> Bool in
      guard !progress.writing, progress.newest < book.lastSeq else { return false }
      progress.writing = true
      return true
    }
    guard start else { return }
    queue.async { [self] in
      write(book, line: line, end: end)
      progress.withLock { $0.writing = false }
    }
  }

  /// True when a snapshot is due once the event `seq` is applied.
  func isDue(afterSeq seq: Int) -> Bool { every > 0 && seq % every == 0 }

  /// At a clean stop (after the store closed): writes a snapshot when the events no snapshot
  /// covers are `every` or more, after any snapshot still being written.
  ///
  /// Fewer are left for the next start to replay: the snapshots every `every` events already
  /// keep that tail below `every` events (about 40 ms of replay at most, at the default 10,000),
  /// while a snapshot costs as much as replaying thousands of events, however few are new, since
  /// it holds the whole state. So a clean stop writes one only where those missed (the first
  /// start on a log without a usable snapshot, or a snapshot that could not be written).
  public func finish(_ book: Recovered) {
    queue.sync {
      guard isWorthWritingAtStop(book.lastSeq) else { return }
      write(book, line: nil, end: destination.logEnd)
    }
  }

  /// True when a clean stop at `seq` leaves `every` or more events that no snapshot covers.
  func isWorthWritingAtStop(_ seq: Int) -> Bool {
    every > 0 && seq - progress.withLock({ $0.newest }) >= every
  }

  /// Why snapshots could not be written, for the user to hear about (appends go on regardless).
  public var problems: [String] { failures.withLock { $0 } }

  private func write(_ book: Recovered, line: [UInt8]?, end: Int) {
    do {
      try destination.write(book, line: line, end: end)
      progress.withLock { $0.newest = max($0.newest, book.lastSeq) }
    } catch {
      failures.withLock { $0.append("cannot write a snapshot at seq \(book.lastSeq): \(error)") }
    }
  }
}

/// Snapshot files beside the log a writer appends to.
struct FileSnapshots: SnapshotDestination {
  let files: SnapshotFiles
  let writer: EventLogWriter
  /// `seq + lineOffset` is the line a record is on (the log may start at a seq other than 1).
  let lineOffset: Int

  init(files: SnapshotFiles, writer: EventLogWriter) {
    self.files = files
    self.writer = writer
    lineOffset = writer.recovery.recordCount - (writer.recovery.lastSeq ?? 0)
  }

  var logEnd: Int { writer.length }

  func write(_ book: Recovered, line: [UInt8]?, end: Int) throws {
    let checkpoint = try EventLogCheckpoint.ofRecord(
      endingAt: end, inLogAt: files.logPath, seq: book.lastSeq, line: book.lastSeq + lineOffset)
    try files.write(Snapshot(checkpoint: checkpoint, recovered: book))
  }
}
