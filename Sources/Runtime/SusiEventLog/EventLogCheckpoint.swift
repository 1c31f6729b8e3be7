import Glibc

/// A point in a log that a snapshot covers: the record it ends at, and how to recognise that
/// record again, so a snapshot of one log is never applied to a cut, replaced or different one.
public struct EventLogCheckpoint: Equatable, Sendable {
  /// The seq of the last record covered.
  public var seq: Int
  /// The 1-based line that record is on.
  public var line: Int
  /// The byte offset right after that record's newline: where the tail starts.
  public var offset: Int
  /// The record's length in bytes, without its newline.
  public var recordLength: Int
  /// The CRC-32C of the record's bytes, without its newline.
  public var recordCRC: UInt32

  public init(seq: Int, line: Int, offset: Int, recordLength: Int, recordCRC: UInt32) {
    self.seq = seq
    self.line = line
    self.offset = offset
    self.recordLength = recordLength
    self.recordCRC = recordCRC
  }

  /// The checkpoint after `line` (a record's exact bytes without newline), which ends at `offset`.
  public init(seq: Int, lineNumber: Int, offset: Int, line: some Collection<UInt8>) {
    self.init(
      seq: seq, line: lineNumber, offset: offset, recordLength: line.count,
      recordCRC: CRC32C.checksum(line))
  }

  /// Why the log at `path` does not hold this checkpoint's record where it says, or nil when it
  /// does. Reads only that record (and the byte before it).
  public func mismatch(inLogAt path: String) -> String? {
    let fd: Int32
    do {
      fd = try SystemCalls.openRegularFile(path, flags: O_RDONLY)
    } catch {
      return "the log cannot be read: \(error.text)"
    }
    defer { close(fd) }
    return mismatch(fd: fd)
  }

  func mismatch(fd: Int32) -> String? {
    var info = stat()
    guard fstat(fd, &info) == 0 else { return "the log cannot be read" }
    guard Int(info.st_size) >= offset else {
      return "the log is shorter (\(info.st_size) bytes) than the snapshot's end (\(offset))"
    }
    let start = offset - recordLength - 1
    guard start >= 0, recordLength > 0 else { return "the snapshot names no record" }
    // The byte before the record must end the previous line (or the record starts the file).
    let readStart = max(start - 1, 0)
    let count = offset - readStart
    var bytes = [UInt8](repeating: 0, count: count)
    let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(readStart)) }
    guard read == count else { return "the log cannot be read at offset \(readStart)" }
    if start > 0 && bytes[0] != 0x0A || bytes[count - 1] != 0x0A {
      return "no record ends at offset \(offset) of the log"
    }
    let record = bytes[(start - readStart)..<(count - 1)]
    guard CRC32C.checksum(record) == recordCRC else {
      return "the log's record at offset \(start) is not the one the snapshot covers"
    }
    return nil
  }
}

extension EventLogCheckpoint {
  /// The checkpoint of the record that ends (with its newline) at `offset` in the log at `path`,
  /// read back from the file. Throws when no complete record ends there.
  public static func ofRecord(endingAt offset: Int, inLogAt path: String, seq: Int, line: Int)
    throws(EventLogError) -> EventLogCheckpoint
  {
    let fd: Int32
    do {
      fd = try SystemCalls.openRegularFile(path, flags: O_RDONLY)
    } catch {
      throw EventLogError(code: .fileError, path: path, errno: error.errno, message: error.text)
    }
    defer { close(fd) }
    // Read backwards in growing chunks until the newline before the record turns up.
    var chunk = 4096
    while true {
      let start = max(0, offset - chunk)
      let count = offset - start
      var bytes = [UInt8](repeating: 0, count: count)
      let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(start)) }
      guard read == count, count > 1, bytes[count - 1] == 0x0A else {
        throw EventLogError(
          code: .fileError, path: path, message: "no complete record ends at offset \(offset)")
      }
      if let newline = bytes[..<(count - 1)].lastIndex(of: 0x0A) {
        return EventLogCheckpoint(
          seq: seq, lineNumber: line, offset: offset, line: bytes[(newline + 1)..<(count - 1)])
      }
      if start == 0 {
        return EventLogCheckpoint(
          seq: seq, lineNumber: line, offset: offset, line: bytes.dropLast())
      }
      guard chunk < EventLogReader.defaultMaximumLineLength * 2 else {
        throw EventLogError(code: .lineTooLong, path: path, message: "the last record is too long")
      }
      chunk *= 4
    }
  }
}
