import Glibc

/// Splits a file into `\n`-terminated lines through one fixed-size buffer, so memory stays the
/// same however long the file is. The buffer grows only when a single line does not fit, and
/// never beyond the maximum line length.
final class LineSplitter {
  enum Piece {
    /// A complete line without its newline, valid until the next call. Its bytes may be
    /// rewritten in place.
    case line(UnsafeMutableRawBufferPointer, offset: Int)
    /// Bytes after the last newline, up to the end of the file.
    case unterminated(UnsafeRawBufferPointer, offset: Int)
    /// The end of the file, right after a newline (or an empty file).
    case end(offset: Int)
  }

  enum Failure: Error {
    case lineTooLong
    case readFailed(SystemCalls.Failure)
  }

  private let fd: Int32
  let maximumLineLength: Int
  private var storage: UnsafeMutableRawPointer
  private var capacity: Int
  /// Unconsumed bytes are `storage[start..<end]`; no newline lies in `storage[start..<scanned]`.
  private var start = 0
  private var end = 0
  private var scanned = 0
  /// The file offset of `storage[0]`.
  private var storageOffset = 0
  private var reachedEndOfFile = false

  /// Splits what `fd` holds from its current position, which is `startOffset` in the file.
  init(fd: Int32, bufferSize: Int, maximumLineLength: Int, startOffset: Int = 0) {
    self.fd = fd
    storageOffset = startOffset
    self.maximumLineLength = maximumLineLength
    capacity = max(64, min(bufferSize, maximumLineLength + 1))
    storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
  }

  deinit { storage.deallocate() }

  func next() throws(Failure) -> Piece {
    while true {
      if let newline = memchr(storage + scanned, 0x0A, end - scanned) {
        let lineEnd = storage.distance(to: UnsafeMutableRawPointer(newline))
        let line = UnsafeMutableRawBufferPointer(start: storage + start, count: lineEnd - start)
        let offset = storageOffset + start
        start = lineEnd + 1
        scanned = start
        return .line(line, offset: offset)
      }
      scanned = end
      if end - start > maximumLineLength {
        throw .lineTooLong
      }
      if reachedEndOfFile {
        let offset = storageOffset + start
        let rest = UnsafeRawBufferPointer(start: storage + start, count: end - start)
        start = end
        return rest.isEmpty ? .end(offset: offset) : .unterminated(rest, offset: offset)
      }
      makeRoom()
      let count: Int
      do {
        count = try SystemCalls.read(fd, into: storage + end, count: capacity - end)
      } catch {
        throw .readFailed(error)
      }
      if count == 0 { reachedEndOfFile = true }
      end += count
    }
  }

  /// Ensures there is space after `end`: slides the pending partial line to the front, or grows
  /// the buffer when the pending line fills it.
  private func makeRoom() {
    guard end == capacity else { return }
    if start > 0 {
      let pending = end - start
      memmove(storage, storage + start, pending)
      storageOffset += start
      scanned -= start
      start = 0
      end = pending
      return
    }
    let grown = min(capacity * 2, maximumLineLength + 1)
    let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
    larger.copyMemory(from: storage, byteCount: end)
    storage.deallocate()
    storage = larger
    capacity = grown
  }
}
