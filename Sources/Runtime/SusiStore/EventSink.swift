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

  /// Every line appended so far.
  public var lines: [[UInt8]] { storage.withLock { $0 } }
}
