/// One record read from a log: its object (without the crc member) and where it came from.
public struct EventLogRecord: Equatable, Sendable {
  /// The 1-based line number in the file.
  public var line: Int
  /// The format version the line was written in: 1 (no checksum) or 2.
  public var version: Int
  public var seq: Int
  /// The byte offset of the line in the file.
  public var offset: Int
  /// The record's JSON object, without the crc member.
  public var object: [UInt8]

  public init(line: Int, version: Int, seq: Int, offset: Int, object: [UInt8]) {
    self.line = line
    self.version = version
    self.seq = seq
    self.offset = offset
    self.object = object
  }
}

/// One record read from a log, borrowed from the reader's buffer: `object` is valid only while
/// the closure it was passed to runs. Copy the bytes (or parse them) before returning.
public struct EventLogRecordView {
  /// The 1-based line number in the file.
  public let line: Int
  /// The format version the line was written in: 1 (no checksum) or 2.
  public let version: Int
  public let seq: Int
  /// The byte offset of the line in the file.
  public let offset: Int
  /// The record's JSON object, without the crc member.
  public let object: UnsafeRawBufferPointer
  /// The whole line's buffer; its object part was rewritten in place to end at `object`.
  let text: UnsafeRawBufferPointer

  /// A copy of the line exactly as the log holds it (checksum included, newline not).
  public var logLine: [UInt8] {
    var bytes = Array(text)
    // Reading a version 2 line closes its object where the checksum member began.
    if version == 2 { bytes[object.count - 1] = UInt8(ascii: ",") }
    return bytes
  }

  /// An owned copy.
  public var record: EventLogRecord {
    EventLogRecord(line: line, version: version, seq: seq, offset: offset, object: Array(object))
  }
}
