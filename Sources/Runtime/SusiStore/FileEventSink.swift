public import SusiEventLog

/// The store's sink on the durable log file.
public final class FileEventSink: EventSink {
  public let writer: EventLogWriter

  public init(writer: EventLogWriter) { self.writer = writer }

  public func append(_ record: [UInt8]) throws -> [UInt8] {
    try writer.appendLine(record)
  }

  public func append(after makeRecord: (_ appendedByOthers: [[UInt8]]) throws -> [UInt8]) throws
    -> [UInt8]
  {
    try writer.withAppendLock { others in try writer.appendLine(try makeRecord(others)) }
  }

  /// Under one append lock; each `batch.write()` is one `write()` of every record added since.
  public func appendBatch<T>(
    _ body: (_ appendedByOthers: [[UInt8]], _ batch: AppendBatch) throws -> T
  ) throws -> T {
    let writer = writer
    return try writer.withAppendLock { others in
      let batch = AppendBatch { records in try writer.appendLines(records) }
      let result = try body(others, batch)
      _ = try batch.write()
      return result
    }
  }

  public var batchesAppends: Bool { true }

  public func appendedByOthers() throws -> [[UInt8]] { try writer.appendedByOthers() }

  /// inotify on the log file, with `fallback` as the slow poll for filesystems where it stays
  /// silent; `changed` only when the file's length says another process appended.
  public func watchAppendsByOthers(
    fallback: Duration, changed: @escaping @Sendable () -> Void
  ) -> (any AppendWatch)? {
    guard writer.options.shared else { return nil }
    let writer = writer
    let (seconds, attoseconds) = fallback.components
    let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
    return LogFileWatcher(path: writer.path, fallback: Int32(clamping: max(1, milliseconds))) {
      () -> Bool in
      // Only this process's own appends: nothing to catch up on.
      guard writer.mayHaveAppendsByOthers else { return false }
      changed()
      return true
    }
  }

  public func sync() throws { try writer.sync() }

  public func close() { try? writer.close() }

  public var history: any EventHistory { LogHistory(path: writer.path) }
}

extension LogFileWatcher: AppendWatch {}
