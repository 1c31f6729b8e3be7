public import SusiCore
import Synchronization

/// Where the store writes its events: the durable log, or memory in tests.
public protocol EventSink: Sendable {
  /// Appends one record — a JSON object without the checksum — and returns the exact line
  /// written (without the trailing newline). Throws when the record is not durably appended;
  /// the store then refuses further actions.
  func append(_ record: [UInt8]) throws -> [UInt8]
  /// Forces everything appended so far to stable storage.
  func sync() throws
  /// Flushes and releases the log (and its lock).
  func close()
  /// Where the events appended so far can be read back.
  var history: any EventHistory { get }
  /// Appends the record `makeRecord` returns, like `append(_:)`. On a log other processes append
  /// to as well, `makeRecord` first gets the lines they appended since this sink last looked, and
  /// runs holding the log's append lock, so the record it makes can follow them.
  func append(after makeRecord: (_ appendedByOthers: [[UInt8]]) throws -> [UInt8]) throws
    -> [UInt8]
  /// Appends the event `makeEvent` returns, encoded, like `append(after:)`; a sink that stores
  /// an event's fields beside its line (a database's columns) takes them from the event rather
  /// than reading the line back.
  func appendEvent(after makeEvent: (_ appendedByOthers: [[UInt8]]) throws -> Event) throws
    -> [UInt8]
  /// Appends the records `body` adds to `batch`, like `append(after:)`, under one append lock
  /// and, where the sink can (`batchesAppends`), with one write for all of them: `batch.write()`
  /// writes what was added so far and returns its lines; what is left is written when `body`
  /// returns.
  func appendBatch<T>(_ body: (_ appendedByOthers: [[UInt8]], _ batch: AppendBatch) throws -> T)
    throws -> T
  /// True when `appendBatch` writes a batch at once: the store then logs the intents sent
  /// together (`Store.sendBatch`) in one turn and one write.
  var batchesAppends: Bool { get }
  /// The lines other processes appended since this sink last looked (complete records only;
  /// always empty for a log only this process writes).
  func appendedByOthers() throws -> [[UInt8]]
  /// True when an append returns before its record is committed, and `commit()` commits every
  /// record appended so far at once (group commit): the store then shows an event to nobody
  /// (readers, effects, its sender) until it is committed.
  var commitsInGroups: Bool { get }
  /// Commits every record appended since the last commit; throws when they are not committed.
  func commit() throws
  /// Starts calling `changed` (from any thread) whenever other processes may have appended, so
  /// the store catches up at once instead of looking every so often; a sink that cannot tell
  /// returns nil (the store then looks every `fallback`). A watch may also look every
  /// `fallback` itself, for appends it is not told of.
  func watchAppendsByOthers(fallback: Duration, changed: @escaping @Sendable () -> Void)
    -> (any AppendWatch)?
}

/// The records of one `EventSink.appendBatch`, added in log order and written together.
public final class AppendBatch {
  private var staged: [[UInt8]] = []
  private let writeRecords: ([[UInt8]]) throws -> [[UInt8]]

  /// A batch that hands what was added to `write`, which returns the lines it wrote.
  public init(write: @escaping ([[UInt8]]) throws -> [[UInt8]]) { writeRecords = write }

  /// Adds a record (a JSON object without the checksum) to be written next.
  public func add(_ record: [UInt8]) { staged.append(record) }

  /// Writes the records added since the last write; returns their lines, in order.
  public func write() throws -> [[UInt8]] {
    guard !staged.isEmpty else { return [] }
    let records = staged
    staged = []
    return try writeRecords(records)
  }
}

/// A running watch for other processes' appends (see `EventSink.watchAppendsByOthers`).
public protocol AppendWatch: Sendable {
  /// Stops watching; `changed` is not called after this returns.
  func stop()
}

extension EventSink {
  public func append(after makeRecord: (_ appendedByOthers: [[UInt8]]) throws -> [UInt8]) throws
    -> [UInt8]
  {
    try append(try makeRecord([]))
  }

  public func appendEvent(after makeEvent: (_ appendedByOthers: [[UInt8]]) throws -> Event) throws
    -> [UInt8]
  {
    try append(after: { try makeEvent($0).encoded() })
  }

  public func appendedByOthers() throws -> [[UInt8]] { [] }

  /// One record at a time through `append(_:)`, for a sink no other process appends to.
  public func appendBatch<T>(
    _ body: (_ appendedByOthers: [[UInt8]], _ batch: AppendBatch) throws -> T
  ) throws -> T {
    let batch = AppendBatch { records in try records.map { try append($0) } }
    let result = try body([], batch)
    _ = try batch.write()
    return result
  }

  public var batchesAppends: Bool { false }

  /// Every append is committed when it returns.
  public var commitsInGroups: Bool { false }

  public func commit() throws {}

  public func watchAppendsByOthers(
    fallback: Duration, changed: @escaping @Sendable () -> Void
  ) -> (any AppendWatch)? { nil }
}

/// Keeps lines in memory: for tests and for runs that must not touch the disk.
public final class MemoryEventSink: EventSink {
  private let storage = Mutex<[[UInt8]]>([])

  public init() {}

  public func append(_ record: [UInt8]) throws -> [UInt8] {
    storage.withLock { $0.append(record) }
    return record
  }

  public func sync() throws {}
  public func close() {}
  public var history: any EventHistory { MemoryEventHistory(self) }

  /// Nobody else appends: batches go through `append(_:)` one record at a time.
  public var batchesAppends: Bool { true }

  /// Every line appended so far.
  public var lines: [[UInt8]] { storage.withLock { $0 } }
}
