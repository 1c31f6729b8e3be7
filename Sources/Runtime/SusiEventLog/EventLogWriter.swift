import Dispatch
import Glibc
import Synchronization

/// Appends records to an event log, one `write()` per line (or per batch, `appendLines`), after
/// checking and repairing the file on open.
///
/// - Opening creates the file with mode 0600 if needed, takes the single-writer lock (a second
///   writer fails at once with `.inUse`; a shared log, `Options.shared`, is locked only around
///   each append instead), and scans the log once: an incomplete final record is
///   cut off and reported in `recovery.tornTail`; any other damage (see `EventLogReader`) makes
///   the open fail with the line number, and nothing is changed.
/// - `append` takes a compact JSON object beginning `{"v":2,"seq":N,` whose seq is `nextSeq`,
///   adds the checksum member and the newline, and writes the line. If the write fails the file
///   is cut back to the previous record and the append throws `.writeFailed`.
/// - An `fdatasync` failure is final: the writer throws `.writerBroken` from then on.
///
/// Thread-safe: appends from several threads are serialized. Every call blocks its thread for
/// the system calls it makes (`write()`, and `fdatasync` under `always`, in `sync()` and in
/// `close()`), so call it from one owner (the store's actor), not from many tasks at once.
public final class EventLogWriter: Sendable {
  /// How a writer behaves.
  public struct Options: Sendable, Equatable {
    public var fsync: EventLogFsyncPolicy
    /// The flush window of the `batch` policy.
    public var groupCommit: EventLogGroupCommit
    /// The seq the first record must carry (and an empty log starts at): 1 for a log holding the
    /// whole history; nil accepts whatever an existing log starts with (an empty one starts at 1).
    public var firstSeq: Int?
    /// The longest line written or read, not counting its newline.
    public var maximumLineLength: Int
    /// Where a snapshot left off: when the log holds this record where it says, the scan on open
    /// checks only the records after it (`recovery.resumedAfter` says whether it did).
    public var resumeAfter: EventLogCheckpoint?
    /// Whether other processes may append to the log too (see `EventLogWriter+Sharing.swift`):
    /// the lock is then held only around each append, inside `withAppendLock`.
    public var shared: Bool

    public init(
      fsync: EventLogFsyncPolicy = .batch, groupCommit: EventLogGroupCommit = .init(),
      firstSeq: Int? = 1, maximumLineLength: Int = EventLogReader.defaultMaximumLineLength,
      resumeAfter: EventLogCheckpoint? = nil, shared: Bool = false
    ) {
      self.shared = shared
      self.resumeAfter = resumeAfter
      self.fsync = fsync
      self.groupCommit = groupCommit
      self.firstSeq = firstSeq
      self.maximumLineLength = maximumLineLength
    }
  }

  public let path: String
  public let options: Options
  /// What opening found: the record count, the last seq, and any torn tail that was cut off.
  public let recovery: EventLogRecovery
  /// For a shared log: this process's presence among the processes using it.
  public let presence: LogPresence?

  let state: Mutex<WriterState>
  /// `state.writtenLength` and `state.fd`, readable without the lock: what a watcher woken by
  /// this process's own write compares the file's length with (see `mayHaveAppendsByOthers`).
  let publishedLength: Atomic<Int>
  let publishedFD: Atomic<Int32>
  /// Where every `fdatasync` of the `batch` policy, `sync()` and `close()` run, one at a time.
  let flushQueue = DispatchQueue(label: "susi.eventlog.flush")

  /// Opens (creating if needed) the log at `path` for appending. See the type's documentation.
  public init(path: String, options: Options = Options()) throws(EventLogError) {
    self.path = path
    self.options = options
    let (fd, created) = try Self.openForAppending(path)
    do {
      if options.shared {
        presence = try LogPresence(logPath: path)
        // The scan may cut a torn tail, so it runs under the append lock like any change.
        try AppendLock.lock(fd, path: path)
      } else {
        presence = nil
        try WriterLock.acquire(fd, path: path)
      }
      defer { if options.shared { AppendLock.unlock(fd) } }
      if created && options.fsync != .never { try Self.syncDirectory(of: path) }
      recovery = try Self.recover(fd: fd, path: path, created: created, options: options)
    } catch {
      Glibc.close(fd)
      throw error
    }
    let nextSeq = recovery.lastSeq.map { $0 + 1 } ?? max(options.firstSeq ?? 1, 1)
    state = Mutex(
      WriterState(
        fd: fd, nextSeq: nextSeq, length: recovery.byteLength, records: recovery.recordCount))
    publishedLength = Atomic(recovery.byteLength)
    publishedFD = Atomic(fd)
  }

  deinit {
    // Nothing else can reach the writer now, so no flush is running: sync and close directly.
    state.withLock { state in
      guard state.fd >= 0 else { return }
      if options.fsync != .never, state.syncedLength < state.writtenLength {
        try? SystemCalls.dataSync(state.fd)
      }
      Glibc.close(state.fd)
      state.fd = -1
    }
  }

  /// The seq the next appended record must carry.
  public var nextSeq: Int { state.withLock { $0.nextSeq } }

  /// The log's length: the byte offset right after the last record written.
  public var length: Int { state.withLock { $0.writtenLength } }

  /// Appends one record: `object` is a compact JSON object beginning `{"v":2,"seq":N,` with
  /// N == `nextSeq`, without a crc member. Returns N.
  @discardableResult
  public func append(_ object: [UInt8]) throws(EventLogError) -> Int {
    let result: Result<Int, EventLogError> = object.withUnsafeBytes { bytes in
      Result { () throws(EventLogError) in try append(bytes) }
    }
    return try result.get()
  }

  /// Appends one record from borrowed bytes; see `append(_: [UInt8])`.
  @discardableResult
  public func append(_ object: UnsafeRawBufferPointer) throws(EventLogError) -> Int {
    let seq: Int
    do {
      seq = try EventLogLine.seqOfObject(object, maximumLineLength: options.maximumLineLength)
    } catch {
      throw EventLogError(code: error.code, path: path, message: error.message)
    }
    let flush = try state.withLock { state throws(EventLogError) in
      try writeLine(of: object, seq: seq, state: &state)
    }
    requestFlush(flush)
    return seq
  }

  /// Appends one record like `append(_:)` and returns the exact line written, without its
  /// newline (what frontends print), saving a second framing of the record.
  public func appendLine(_ object: [UInt8]) throws(EventLogError) -> [UInt8] {
    let result: Result<[UInt8], EventLogError> = object.withUnsafeBytes { bytes in
      Result { () throws(EventLogError) in try appendLine(bytes) }
    }
    return try result.get()
  }

  private func appendLine(_ object: UnsafeRawBufferPointer) throws(EventLogError) -> [UInt8] {
    let seq: Int
    do {
      seq = try EventLogLine.seqOfObject(object, maximumLineLength: options.maximumLineLength)
    } catch {
      throw EventLogError(code: error.code, path: path, message: error.message)
    }
    let (flush, line) = try state.withLock {
      state throws(EventLogError) -> (FlushRequest, [UInt8]) in
      let flush = try writeLine(of: object, seq: seq, state: &state)
      return (flush, Array(state.line.dropLast()))
    }
    requestFlush(flush)
    return line
  }

  /// Appends several records with one `write()`: each is a compact JSON object as `append`
  /// takes, their seqs following on from `nextSeq`. Returns the exact lines written, without
  /// newlines. Either every record is appended or none is (a failed or short write is cut
  /// back, as for one record), so a batch costs one system call however many records it holds.
  public func appendLines(_ objects: [[UInt8]]) throws(EventLogError) -> [[UInt8]] {
    guard !objects.isEmpty else { return [] }
    var seqs: [Int] = []
    seqs.reserveCapacity(objects.count)
    for object in objects {
      let seq = object.withUnsafeBytes { bytes in
        Result { () throws(EventLogLine.Problem) in
          try EventLogLine.seqOfObject(bytes, maximumLineLength: options.maximumLineLength)
        }
      }
      switch seq {
      case .success(let seq): seqs.append(seq)
      case .failure(let error):
        throw EventLogError(code: error.code, path: path, message: error.message)
      }
    }
    let (flush, lines) = try state.withLock {
      state throws(EventLogError) -> (FlushRequest, [[UInt8]]) in
      try writeLines(of: objects, seqs: seqs, state: &state)
    }
    requestFlush(flush)
    return lines
  }

  /// Forces every record written so far to stable storage (whatever the policy).
  public func sync() throws(EventLogError) {
    try onFlushQueue { () throws(EventLogError) in try flushNow() }
  }

  /// Flushes (unless the policy is `never`), releases the lock and closes the file. Appending
  /// afterwards throws `.closed`; closing twice does nothing.
  public func close() throws(EventLogError) {
    try onFlushQueue { () throws(EventLogError) in try closeNow() }
  }

  /// Marks the writer closed, syncs what is unsynced and closes the descriptor. Call only on
  /// `flushQueue`.
  private func closeNow() throws(EventLogError) {
    let (fd, needsSync) = state.withLock { state in
      let fd = state.fd
      state.fd = -1
      publishedFD.store(-1, ordering: .releasing)
      return (fd, state.broken == nil && state.syncedLength < state.writtenLength)
    }
    guard fd >= 0 else { return }
    defer {
      Glibc.close(fd)
      presence?.release()
    }
    guard needsSync && options.fsync != .never else { return }
    do {
      try SystemCalls.dataSync(fd)
    } catch {
      throw EventLogError(
        code: .writerBroken, path: path, errno: error.errno,
        message: "\(error.text) while closing; the last records may not be on disk")
    }
  }

  /// Writes one encoded line under the lock, undoing a failed write, and syncs for `always`.
  private func writeLine(
    of object: UnsafeRawBufferPointer, seq: Int, state: inout WriterState
  ) throws(EventLogError) -> FlushRequest {
    try checkWritable(seqs: CollectionOfOne(seq), state: state)
    state.line.removeAll(keepingCapacity: state.line.capacity <= 1 << 20)
    EventLogLine.encode(object, into: &state.line)
    do {
      try SystemCalls.writeAll(state.fd, state.line)
    } catch {
      try undoFailedWrite(error, seq: seq, state: &state)
    }
    return try recordsWritten(1, last: seq, state: &state)
  }

  /// Writes several encoded lines with one `write()` under the lock, like `writeLine`, and
  /// returns them without their newlines.
  private func writeLines(
    of objects: [[UInt8]], seqs: [Int], state: inout WriterState
  ) throws(EventLogError) -> (FlushRequest, [[UInt8]]) {
    try checkWritable(seqs: seqs, state: state)
    state.line.removeAll(keepingCapacity: state.line.capacity <= 1 << 20)
    var ends: [Int] = []
    ends.reserveCapacity(objects.count)
    for object in objects {
      object.withUnsafeBytes { EventLogLine.encode($0, into: &state.line) }
      ends.append(state.line.count)
    }
    do {
      try SystemCalls.writeAll(state.fd, state.line)
    } catch {
      try undoFailedWrite(error, seq: seqs[0], state: &state)
    }
    var lines: [[UInt8]] = []
    lines.reserveCapacity(objects.count)
    var start = 0
    for end in ends {
      lines.append(Array(state.line[start..<(end - 1)]))
      start = end
    }
    return (try recordsWritten(objects.count, last: seqs[seqs.count - 1], state: &state), lines)
  }

  /// Refuses a write the writer cannot take: it is closed or broken, the log is shared and its
  /// lock not held, or the records' seqs do not follow the log's last one by one.
  private func checkWritable(seqs: some Collection<Int>, state: WriterState)
    throws(EventLogError)
  {
    guard state.fd >= 0 else {
      throw EventLogError(code: .closed, path: path, message: "the writer is closed")
    }
    if let broken = state.broken { throw broken }
    if options.shared && !state.appendLocked {
      throw EventLogError(
        code: .invalidRecord, path: path,
        message: "a shared log is appended to only inside withAppendLock")
    }
    for (offset, seq) in seqs.enumerated() where seq != state.nextSeq + offset {
      throw EventLogError(
        code: .invalidRecord, path: path,
        message: "the record has seq \(seq) but the log's next seq is \(state.nextSeq + offset)")
    }
  }

  /// Counts the `count` records `state.line` held, just written (the last with seq `last`), and
  /// syncs them or says when to, as the fsync policy wants.
  private func recordsWritten(_ count: Int, last: Int, state: inout WriterState)
    throws(EventLogError) -> FlushRequest
  {
    state.writtenLength += state.line.count
    publishedLength.store(state.writtenLength, ordering: .releasing)
    state.nextSeq += count
    state.records += count
    switch options.fsync {
    case .always:
      do {
        try SystemCalls.dataSync(state.fd)
      } catch {
        throw breakWriter(state: &state, error, "after writing seq \(last)")
      }
      state.syncedLength = state.writtenLength
      return .none
    case .batch:
      var flush = FlushRequest.none
      for _ in 0..<count {
        switch state.recordWritten(groupCommit: options.groupCommit) {
        case .none: break
        case .now: flush = .now
        case .afterDelay(let delay):
          if case .none = flush { flush = .afterDelay(delay) }
        }
      }
      return flush
    case .never:
      return .none
    }
  }

  /// Cuts the file back to the last good record after a failed or short write, then throws.
  private func undoFailedWrite(
    _ failure: SystemCalls.Failure, seq: Int, state: inout WriterState
  ) throws(EventLogError) -> Never {
    do {
      try SystemCalls.truncate(state.fd, to: state.writtenLength)
    } catch {
      throw breakWriter(
        state: &state, error,
        "while cutting back a failed write of seq \(seq) (\(failure.text)); "
          + "the file may end with a partial record, which the next open will remove")
    }
    throw EventLogError(
      code: .writeFailed, path: path, errno: failure.errno,
      message:
        "could not write seq \(seq) (\(failure.text)); the file was cut back to the previous "
        + "record, so the log is unchanged")
  }

  /// Records a fatal failure: every later call throws the returned error.
  func breakWriter(state: inout WriterState, _ failure: SystemCalls.Failure, _ context: String)
    -> EventLogError
  {
    let error = EventLogError(
      code: .writerBroken, path: path, errno: failure.errno,
      message:
        "\(failure.text) \(context). The writer accepts no more records; whether the last ones "
        + "reached the disk is unknown: stop, then reopen the log")
    state.broken = error
    return error
  }

  /// Runs `body` on the flush queue, so it never overlaps a background flush.
  private func onFlushQueue(_ body: () throws(EventLogError) -> Void) throws(EventLogError) {
    let result: Result<Void, EventLogError> = flushQueue.sync {
      do throws(EventLogError) {
        try body()
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    try result.get()
  }
}

/// The writer's mutable state, guarded by its mutex.
struct WriterState {
  /// The log's descriptor; -1 once closed.
  var fd: Int32
  var nextSeq: Int
  /// The file's length: the end of the last record written.
  var writtenLength: Int
  /// How much of the file is known to be on stable storage.
  var syncedLength: Int
  /// Records written since the last flush started.
  var unsyncedRecords = 0
  var timedFlushPending = false
  var immediateFlushPending = false
  /// Set by a fatal failure; thrown by every later call.
  var broken: EventLogError?
  /// The line being written, kept to reuse its storage.
  var line: [UInt8] = []
  /// How many records the file holds up to `writtenLength`.
  var records: Int
  /// True while a shared log's append lock is held (inside `withAppendLock`).
  var appendLocked = false

  init(fd: Int32, nextSeq: Int, length: Int, records: Int) {
    self.fd = fd
    self.nextSeq = nextSeq
    self.records = records
    writtenLength = length
    syncedLength = length
    line.reserveCapacity(4096)
  }
}

extension EventLogWriter {
  /// The exact line (without its newline) that appending `object` writes: the object with its
  /// checksum member added. Frontends that print events send these bytes.
  public static func line(for object: [UInt8]) -> [UInt8] {
    var line: [UInt8] = []
    line.reserveCapacity(object.count + EventLogLine.trailerLength)
    object.withUnsafeBytes { EventLogLine.encode($0, into: &line) }
    line.removeLast()
    return line
  }
}
