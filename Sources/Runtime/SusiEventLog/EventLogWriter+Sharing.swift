import Glibc
import Synchronization

// Sharing one log between processes (`Options.shared`).
//
// Every append happens under the append lock, an exclusive `flock` on the log held only for the
// append: take the lock, read what other processes appended since this writer last looked (cut
// off a torn tail a crashed writer left: only a writer holding the lock writes, so an incomplete
// record under the lock is one nobody will finish), append, release. Between appends a process
// follows the others with `appendedByOthers()`, which needs no lock and reads only complete
// records.
extension EventLogWriter {
  /// Runs `body` holding a shared log's append lock, after reading the records other processes
  /// appended since this writer last looked. `body` gets their exact lines (without newlines), in
  /// log order, and may append with `append`/`appendLine`: `nextSeq` already follows them.
  ///
  /// Call from one owner at a time (the store's actor), never from inside `body`.
  @discardableResult
  public func withAppendLock<T>(_ body: (_ appendedByOthers: [[UInt8]]) throws -> T) throws -> T {
    guard options.shared else { return try body([]) }
    let fd = state.withLock { $0.fd }
    guard fd >= 0 else {
      throw EventLogError(code: .closed, path: path, message: "the writer is closed")
    }
    try AppendLock.lock(fd, path: path)
    defer { AppendLock.unlock(fd) }
    let others = try readAppendedByOthers(repairing: true)
    state.withLock { $0.appendLocked = true }
    defer { state.withLock { $0.appendLocked = false } }
    return try body(others)
  }

  /// The lines of the complete records other processes appended since this writer last looked
  /// (a shared log; always empty otherwise). Takes no lock: a record still being written is left
  /// for the next call. Call from the same owner as `withAppendLock`.
  public func appendedByOthers() throws(EventLogError) -> [[UInt8]] {
    guard options.shared else { return [] }
    return try readAppendedByOthers(repairing: false)
  }

  /// True when the file's length differs from what this writer has written and read: another
  /// process may have appended. Cheap (one `fstat`), takes no lock, callable from any thread:
  /// what a watcher asks before having the owner catch up.
  public var mayHaveAppendsByOthers: Bool {
    // Most reports are of this process's own writes: the file's length equals what it wrote.
    // That is told without the writer's lock, which an append holds across its `write()`, so a
    // watcher woken by that very write does not wait for it. A differing length is checked
    // again under the lock (the writer may be between its `write()` and its bookkeeping).
    guard options.shared else { return false }
    let fd = publishedFD.load(ordering: .acquiring)
    var quick = stat()
    if fd >= 0, fstat(fd, &quick) == 0,
      Int(quick.st_size) == publishedLength.load(ordering: .acquiring)
    {
      return false
    }
    return state.withLock { s in
      var info = stat()
      guard options.shared, s.fd >= 0, fstat(s.fd, &info) == 0 else { return false }
      return Int(info.st_size) != s.writtenLength
    }
  }

  /// Reads from the end of what this writer knows to the end of the file. With `repairing` (the
  /// append lock held), a torn tail is cut off, so the next append starts on a fresh line.
  private func readAppendedByOthers(repairing: Bool) throws(EventLogError) -> [[UInt8]] {
    let (fd, known, lastSeq, records) = state.withLock {
      ($0.fd, $0.writtenLength, $0.nextSeq - 1, $0.records)
    }
    guard fd >= 0 else {
      throw EventLogError(code: .closed, path: path, message: "the writer is closed")
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw Self.fileError(path, SystemCalls.Failure(errno: errno, call: "fstat"))
    }
    let size = Int(info.st_size)
    if size == known { return [] }
    guard size > known else {
      throw EventLogError(
        code: .fileError, path: path,
        message:
          "the log is \(size) bytes, shorter than the \(known) this process has read: "
          + "something other than susi cut it")
    }
    let readFD: Int32
    do {
      readFD = try SystemCalls.openRegularFile(path, flags: O_RDONLY)
    } catch {
      throw Self.fileError(path, error)
    }
    lseek(readFD, off_t(known), SEEK_SET)
    // Only the seq, line and offset of this starting point are used; the record before it is
    // this writer's own, already checked.
    let start = EventLogCheckpoint(
      seq: lastSeq, line: records, offset: known, recordLength: 0, recordCRC: 0)
    let reader = EventLogReader(
      fd: readFD, path: path, firstSeq: nil, maximumLineLength: options.maximumLineLength,
      bufferSize: 64 << 10, after: start)
    defer { reader.close() }
    var lines: [[UInt8]] = []
    while let view = try reader.nextView() { lines.append(view.logLine) }
    if repairing, reader.tornTail != nil {
      do {
        try SystemCalls.truncate(fd, to: reader.validLength)
        try SystemCalls.fullSync(fd)
      } catch {
        throw Self.fileError(path, error, context: "cutting off a record a crashed writer left")
      }
    }
    guard !lines.isEmpty else { return [] }
    let moved = state.withLock { state -> Bool in
      // Only the owner moves the end forward, so it is still `known` here.
      guard state.writtenLength == known else { return false }
      state.writtenLength = reader.validLength
      publishedLength.store(reader.validLength, ordering: .releasing)
      state.syncedLength = max(state.syncedLength, known)
      state.nextSeq = (reader.lastSeq ?? lastSeq) + 1
      state.records = reader.recordCount
      return true
    }
    return moved ? lines : []
  }
}

/// The append lock of a shared log: an exclusive `flock` on the writer's descriptor, held for one
/// append. Blocking: a holder keeps it only for a write (and an fsync under `always`).
enum AppendLock {
  static func lock(_ fd: Int32, path: String) throws(EventLogError) {
    while flock(fd, LOCK_EX) != 0 {
      let code = errno
      if code == EINTR { continue }
      throw EventLogError(
        code: .fileError, path: path, errno: code,
        message: SystemCalls.Failure(errno: code, call: "flock").text)
    }
  }

  static func unlock(_ fd: Int32) { flock(fd, LOCK_UN) }
}

/// This process's presence among those using a shared log: a `flock` on `LOG.alive`, held
/// shared by every live process (the kernel drops it when a process dies).
///
/// Opening first tries to take it exclusively: a process that gets it was alone, so the requests
/// the log showed in flight at that moment belong to no live process and it may close them as
/// interrupted. It then holds it shared like everyone else (turning exclusive into shared never
/// waits, so no other process can slip in as "alone" between the two).
public final class LogPresence: Sendable {
  /// True when no other process was using the log when this one opened it.
  public let wasAlone: Bool
  private let fd: Mutex<Int32>

  init(logPath: String) throws(EventLogError) {
    let path = logPath + ".alive"
    let fd: Int32
    do {
      fd = try SystemCalls.openRegularFile(path, flags: O_RDWR | O_CREAT, mode: 0o600)
    } catch {
      throw EventLogWriter.fileError(path, error)
    }
    wasAlone = flock(fd, LOCK_EX | LOCK_NB) == 0
    // Another process holds it exclusively only for the moment between these two calls.
    while flock(fd, LOCK_SH) != 0 {
      let code = errno
      guard code == EINTR else {
        Glibc.close(fd)
        throw EventLogError(
          code: .fileError, path: path, errno: code,
          message: SystemCalls.Failure(errno: code, call: "flock").text)
      }
    }
    self.fd = Mutex(fd)
  }

  deinit { release() }

  /// Leaves: other processes no longer count this one.
  func release() {
    fd.withLock { fd in
      guard fd >= 0 else { return }
      Glibc.close(fd)
      fd = -1
    }
  }
}
