import Glibc

/// Streams the records of an event log, checking each line's framing, checksum and seq.
///
/// Memory is one fixed read buffer (it grows only for a line longer than the buffer, up to
/// `maximumLineLength`), however long the log. Needs no lock: a log that a writer is appending to
/// can be read; a record still being written shows up as a torn tail.
///
/// - An incomplete final record (bytes after the last newline, or a final line of nothing but
///   NUL bytes) ends the stream cleanly and is reported in `tornTail`.
/// - Anything else wrong (a checksum mismatch, a line that is not a record, a NUL byte inside a
///   record, a seq that is not the previous + 1, even on the last complete line) throws an error naming the line; nothing after
///   it is read. So does a line longer than `maximumLineLength`, even an unterminated last one.
///
/// One reader belongs to one owner at a time (it is not `Sendable`).
public final class EventLogReader {
  /// The longest line read unless told otherwise: 16 MiB.
  public static let defaultMaximumLineLength = 16 << 20
  /// The read buffer size unless told otherwise: 1 MiB.
  public static let defaultBufferSize = 1 << 20

  public let path: String
  /// The incomplete final record found at the end, once the stream has ended.
  public private(set) var tornTail: EventLogTornTail?
  // Updated per record. The reader has one owner at a time, so no access to these overlaps
  // another: they are not checked at run time (three calls per record, as they are public).
  /// The seq of the last record read so far.
  @exclusivity(unchecked) public private(set) var lastSeq: Int?
  /// How many records the log holds up to the last one read (after a checkpoint, counting the
  /// records before it).
  @exclusivity(unchecked) public private(set) var recordCount = 0
  /// The byte offset right after the last record read so far: where a torn tail gets cut.
  @exclusivity(unchecked) public private(set) var validLength = 0

  private var fd: Int32
  private let splitter: LineSplitter
  private let firstSeq: Int?
  var lineNumber = 0
  private var ended = false
  private var failure: EventLogError?

  /// Opens `path` for reading.
  ///
  /// - Parameters:
  ///   - firstSeq: the seq the first record must carry: 1 for a log holding the whole history,
  ///     nil to accept any start (a log that continues after a snapshot).
  ///   - maximumLineLength: longer lines (not counting the newline) are an error (`lineTooLong`).
  ///   - bufferSize: the size of the read buffer.
  public convenience init(
    path: String, firstSeq: Int? = 1, maximumLineLength: Int = defaultMaximumLineLength,
    bufferSize: Int = defaultBufferSize
  ) throws(EventLogError) {
    let fd = try Self.open(path)
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
    self.init(
      fd: fd, path: path, firstSeq: firstSeq, maximumLineLength: maximumLineLength,
      bufferSize: bufferSize)
  }

  /// Opens `path` for reading only the records after `checkpoint` (the tail a snapshot does not
  /// cover). The checkpoint's record must be where it says (see `EventLogCheckpoint.mismatch`);
  /// line numbers and offsets stay those of the whole file.
  public convenience init(
    path: String, after checkpoint: EventLogCheckpoint,
    maximumLineLength: Int = defaultMaximumLineLength, bufferSize: Int = defaultBufferSize
  ) throws(EventLogError) {
    let fd = try Self.open(path)
    if let reason = checkpoint.mismatch(fd: fd) {
      Glibc.close(fd)
      throw EventLogError(code: .fileError, path: path, message: reason)
    }
    lseek(fd, off_t(checkpoint.offset), SEEK_SET)
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
    self.init(
      fd: fd, path: path, firstSeq: nil, maximumLineLength: maximumLineLength,
      bufferSize: bufferSize, after: checkpoint)
  }

  /// A read-only descriptor of the regular file at `path`.
  private static func open(_ path: String) throws(EventLogError) -> Int32 {
    do {
      return try SystemCalls.openRegularFile(path, flags: O_RDONLY)
    } catch {
      throw EventLogError(code: .fileError, path: path, errno: error.errno, message: error.text)
    }
  }

  /// Reads from `fd`, which the reader now owns and closes; with `checkpoint`, `fd` is positioned
  /// right after the checkpoint's record.
  init(
    fd: Int32, path: String, firstSeq: Int?, maximumLineLength: Int, bufferSize: Int,
    after checkpoint: EventLogCheckpoint? = nil
  ) {
    self.fd = fd
    self.path = path
    self.firstSeq = firstSeq
    splitter = LineSplitter(
      fd: fd, bufferSize: bufferSize, maximumLineLength: maximumLineLength,
      startOffset: checkpoint?.offset ?? 0)
    if let checkpoint {
      lastSeq = checkpoint.seq
      lineNumber = checkpoint.line
      recordCount = checkpoint.line
      validLength = checkpoint.offset
    }
  }

  deinit { close() }

  /// Releases the file. Further reads end the stream.
  public func close() {
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
    ended = true
  }

  /// The next record as an owned copy, or nil at the end of the log.
  public func next() throws(EventLogError) -> EventLogRecord? {
    try nextView()?.record
  }

  /// Calls `body` with each remaining record, borrowed from the read buffer (no copy).
  ///
  /// Rethrows the first error from `body`, or the `EventLogError` that stopped the stream.
  public func forEachRecord(_ body: (EventLogRecordView) throws -> Void) throws {
    while let view = try nextView() { try body(view) }
  }

  /// The next record, pointing into the read buffer until the following call.
  func nextView() throws(EventLogError) -> EventLogRecordView? {
    if let failure { throw failure }
    guard !ended else { return nil }
    let piece: LineSplitter.Piece
    do {
      piece = try splitter.next()
    } catch {
      throw fail(error, line: lineNumber + 1)
    }
    switch piece {
    case .end:
      ended = true
      return nil
    case .unterminated(let bytes, let offset):
      let zeroFilled = bytes.contains(0)
      endWithTornTail(
        zeroFilled ? .zeroFilled : .unterminated, line: lineNumber + 1, offset: offset,
        byteCount: bytes.count)
      return nil
    case .line(let line, let offset):
      lineNumber += 1
      return try record(in: line, offset: offset)
    }
  }

  private func record(in line: UnsafeMutableRawBufferPointer, offset: Int) throws(EventLogError)
    -> EventLogRecordView?
  {
    let decoded: EventLogLine.Decoded
    do {
      decoded = try EventLogLine.decode(UnsafeRawBufferPointer(line))
    } catch {
      // Only a final line of nothing but NUL bytes is space a power loss left unwritten; a NUL
      // inside a record that ends in its newline is damage, and is refused like any other.
      if line.allSatisfy({ $0 == 0 }), let byteCount = restIfLast(lineLength: line.count) {
        endWithTornTail(.zeroFilled, line: lineNumber, offset: offset, byteCount: byteCount)
        return nil
      }
      throw fail(code: error.code, line: lineNumber, message: error.message)
    }
    if let expected = lastSeq.map({ $0 + 1 }) ?? firstSeq, decoded.seq != expected {
      let message =
        if let lastSeq {
          "seq \(decoded.seq) follows seq \(lastSeq); expected \(expected): "
            + "a record is missing or repeated"
        } else {
          "the log's first record has seq \(decoded.seq); expected \(expected)"
        }
      throw fail(code: .seqOutOfOrder, line: lineNumber, message: message)
    }
    // A version 2 record's object ends where its crc member began.
    if decoded.version == 2 { line[decoded.objectLength - 1] = UInt8(ascii: "}") }
    lastSeq = decoded.seq
    recordCount += 1
    validLength = offset + line.count + 1
    return EventLogRecordView(
      line: lineNumber, version: decoded.version, seq: decoded.seq, offset: offset,
      object: UnsafeRawBufferPointer(rebasing: line[0..<decoded.objectLength]),
      text: UnsafeRawBufferPointer(line))
  }

  /// When the damaged line just read is the last complete one, the byte count from its start to
  /// the end of the file; nil when more lines follow it.
  private func restIfLast(lineLength: Int) -> Int? {
    let following: LineSplitter.Piece
    do {
      following = try splitter.next()
    } catch {
      return nil
    }
    switch following {
    case .end: return lineLength + 1
    case .unterminated(let bytes, _): return lineLength + 1 + bytes.count
    case .line: return nil
    }
  }

  private func endWithTornTail(
    _ kind: EventLogTornTail.Kind, line: Int, offset: Int, byteCount: Int
  ) {
    tornTail = EventLogTornTail(
      kind: kind, line: line, offset: offset, byteCount: byteCount, removed: false)
    ended = true
  }

  private func fail(code: EventLogError.Code, line: Int, message: String) -> EventLogError {
    let error = EventLogError(
      code: code, path: path, line: line, message: message + "; nothing after it was read")
    failure = error
    return error
  }

  private func fail(_ error: LineSplitter.Failure, line: Int) -> EventLogError {
    switch error {
    case .lineTooLong:
      return fail(
        code: .lineTooLong, line: line,
        message: "the line is longer than \(splitter.maximumLineLength) bytes")
    case .readFailed(let failure):
      let error = EventLogError(
        code: .fileError, path: path, line: line, errno: failure.errno, message: failure.text)
      self.failure = error
      return error
    }
  }
}
