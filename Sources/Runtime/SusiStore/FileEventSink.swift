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

  public func appendedByOthers() throws -> [[UInt8]] { try writer.appendedByOthers() }

  public func sync() throws { try writer.sync() }

  public func close() { try? writer.close() }

  public var history: any EventHistory { LogHistory(path: writer.path) }
}
