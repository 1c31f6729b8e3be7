import SusiStore
import Synchronization

/// The one writer of output lines. Events go out in seq order; an error line waits until every
/// event accepted from earlier input lines has gone out, so answers appear in input order.
///
/// Whoever queues a line while no write is under way writes it at once, together with anything
/// queued meanwhile by others, and keeps going until nothing is left: no line waits for more
/// lines, no thread is woken to write, and lines, being whole when queued, never interleave
/// mid-line.
final class OrderedOutput: Sendable {
  /// An error line held until the event with seq `after` has been queued.
  private struct HeldLine {
    var after: Int
    var bytes: [UInt8]
  }

  private struct Buffer: ~Copyable {
    var ready: [UInt8] = []
    var held: [HeldLine] = []
    var heldBytes = 0
    /// The seq of the last event queued for writing.
    var queuedSeq: Int
    /// Whether some caller is writing (and will write whatever is queued meanwhile).
    var writing = false
    /// Bytes handed to the output and not yet written.
    var writingBytes = 0
    var closing = false
    var failure: JSONLinesIOError?
    var roomWaiters: [(seq: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var seqWaiters: [(seq: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var closeWaiters: [CheckedContinuation<Void, Never>] = []
  }

  private let buffer: Mutex<Buffer>
  /// The seq of the last event queued, readable without the lock (for the per-line room check).
  private let queuedSeqHint: Atomic<Int>
  private let output: any JSONLinesOutput
  /// Called once, by the caller whose write failed.
  private let onFailure: @Sendable (JSONLinesIOError) -> Void
  /// How far (in events) output may fall behind accepted input before input waits.
  let maximumLag: Int
  /// How many bytes may wait to be written before input waits.
  let maximumBufferedBytes: Int

  /// - Parameter seq: the seq of the last event already in the log; later events are written.
  init(
    output: any JSONLinesOutput, seq: Int, maximumLag: Int = 1024,
    maximumBufferedBytes: Int = 4 << 20,
    onFailure: @escaping @Sendable (JSONLinesIOError) -> Void = { _ in }
  ) {
    self.output = output
    self.onFailure = onFailure
    self.buffer = Mutex(Buffer(queuedSeq: seq))
    self.queuedSeqHint = Atomic(seq)
    self.maximumLag = maximumLag
    self.maximumBufferedBytes = maximumBufferedBytes
  }

  /// Why output stopped, once it has (the reader went away).
  var outputFailure: JSONLinesIOError? { buffer.withLock { $0.failure } }

  /// Writes a line that is not an event and depends on none (the `--replay-first` state).
  func line(_ bytes: [UInt8]) {
    let mustWrite = buffer.withLock { b in
      Self.append(bytes, to: &b)
      return Self.claimWriting(&b)
    }
    if mustWrite { writeQueued() }
  }

  /// Writes `events`, those the store logged together in one write. Events must come in seq
  /// order; ones already queued are ignored.
  func events(_ events: [PublishedEvent]) {
    let (mustWrite, resumed, seq) = buffer.withLock {
      b -> (Bool, [CheckedContinuation<Void, Never>], Int) in
      // By index: a for-in loop would copy each whole event to read its seq and line.
      for index in events.indices where events[index].seq > b.queuedSeq {
        b.queuedSeq = events[index].seq
        Self.append(events[index].line, to: &b)
        Self.releaseHeld(&b)
      }
      let resumed = takeSatisfiedWaiters(&b)
      return (Self.claimWriting(&b), resumed, b.queuedSeq)
    }
    queuedSeqHint.store(seq, ordering: .relaxed)
    for continuation in resumed { continuation.resume() }
    if mustWrite { writeQueued() }
  }

  /// Writes an error line after the event `seq` (the last event accepted from input before the
  /// line that failed), holding it until that event has been written.
  func error(_ bytes: [UInt8], after seq: Int) {
    let mustWrite = buffer.withLock { b in
      if b.held.isEmpty && seq <= b.queuedSeq {
        Self.append(bytes, to: &b)
        return Self.claimWriting(&b)
      }
      b.held.append(HeldLine(after: seq, bytes: bytes))
      b.heldBytes += bytes.count
      return false
    }
    if mustWrite { writeQueued() }
  }

  /// Waits while output lags too far behind input that has been accepted through `seq` (the
  /// reader of stdout is slow), so memory stays bounded.
  ///
  /// Runs where its caller runs (the session, on the store): asked once per input line and
  /// almost always answered at once, it would otherwise hop off the store and back each time.
  nonisolated(nonsending) func waitForRoom(acceptedThrough seq: Int) async {
    if seq - queuedSeqHint.load(ordering: .relaxed) <= maximumLag / 2, !hasBacklog() { return }
    await withCheckedContinuation { continuation in
      let now = buffer.withLock { b in
        if hasRoom(b, seq) { return true }
        b.roomWaiters.append((seq, continuation))
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Waits until the event `seq` has been queued (everything the store logged is on its way).
  func waitUntilQueued(_ seq: Int) async {
    await withCheckedContinuation { continuation in
      let now = buffer.withLock { b in
        if b.queuedSeq >= seq || b.closing || b.failure != nil { return true }
        b.seqWaiters.append((seq, continuation))
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Writes everything queued (held error lines too) and returns once the last byte is out.
  func close() async {
    let mustWrite = buffer.withLock { b in
      b.closing = true
      for line in b.held { Self.append(line.bytes, to: &b) }
      b.held = []
      b.heldBytes = 0
      return Self.claimWriting(&b)
    }
    if mustWrite { writeQueued() }
    await withCheckedContinuation { continuation in
      let done = buffer.withLock { b in
        if !b.writing { return true }
        b.closeWaiters.append(continuation)
        return false
      }
      if done { continuation.resume() }
    }
  }

  // MARK: - Writing

  /// Writes until nothing is queued. Only the caller that claimed writing gets here.
  private func writeQueued() {
    var batch: [UInt8] = []
    while true {
      let next = buffer.withLock { b -> (go: Bool, resumed: [CheckedContinuation<Void, Never>]) in
        b.writingBytes = 0
        if b.ready.isEmpty || b.failure != nil {
          b.writing = false
          let resumed = takeSatisfiedWaiters(&b) + b.closeWaiters
          b.closeWaiters = []
          return (false, resumed)
        }
        swap(&batch, &b.ready)
        b.writingBytes = batch.count
        return (true, takeSatisfiedWaiters(&b))
      }
      for continuation in next.resumed { continuation.resume() }
      guard next.go else { return }

      let result = batch.withUnsafeBytes { output.write($0) }
      batch.removeAll(keepingCapacity: batch.capacity <= 1 << 20)

      if case .failure(let error) = result {
        let resumed = buffer.withLock { b -> [CheckedContinuation<Void, Never>] in
          b.failure = error
          b.ready = []
          b.held = []
          b.heldBytes = 0
          return takeAllWaiters(&b)
        }
        for continuation in resumed { continuation.resume() }
        onFailure(error)
      }
    }
  }

  // MARK: - Under the lock

  private static func append(_ bytes: [UInt8], to b: inout Buffer) {
    guard b.failure == nil else { return }
    b.ready.append(contentsOf: bytes)
    b.ready.append(0x0a)
  }

  /// True when the caller must write: there is something to write and nobody else is writing.
  private static func claimWriting(_ b: inout Buffer) -> Bool {
    guard !b.writing, !b.ready.isEmpty, b.failure == nil else { return false }
    b.writing = true
    return true
  }

  private static func releaseHeld(_ b: inout Buffer) {
    var released = 0
    while released < b.held.count, b.held[released].after <= b.queuedSeq {
      append(b.held[released].bytes, to: &b)
      b.heldBytes -= b.held[released].bytes.count
      released += 1
    }
    if released > 0 { b.held.removeFirst(released) }
  }

  private func hasBacklog() -> Bool {
    buffer.withLock { b in b.ready.count + b.heldBytes + b.writingBytes > maximumBufferedBytes / 2 }
  }

  private func hasRoom(_ b: borrowing Buffer, _ acceptedSeq: Int) -> Bool {
    if b.failure != nil || b.closing { return true }
    return acceptedSeq - b.queuedSeq <= maximumLag
      && b.ready.count + b.heldBytes + b.writingBytes <= maximumBufferedBytes
  }

  private func takeSatisfiedWaiters(_ b: inout Buffer) -> [CheckedContinuation<Void, Never>] {
    var resumed: [CheckedContinuation<Void, Never>] = []
    if !b.roomWaiters.isEmpty {
      var waiting: [(seq: Int, continuation: CheckedContinuation<Void, Never>)] = []
      for waiter in b.roomWaiters {
        if hasRoom(b, waiter.seq) {
          resumed.append(waiter.continuation)
        } else {
          waiting.append(waiter)
        }
      }
      b.roomWaiters = waiting
    }
    if !b.seqWaiters.isEmpty {
      var waiting: [(seq: Int, continuation: CheckedContinuation<Void, Never>)] = []
      for waiter in b.seqWaiters {
        if waiter.seq <= b.queuedSeq {
          resumed.append(waiter.continuation)
        } else {
          waiting.append(waiter)
        }
      }
      b.seqWaiters = waiting
    }
    return resumed
  }

  private func takeAllWaiters(_ b: inout Buffer) -> [CheckedContinuation<Void, Never>] {
    let resumed =
      b.roomWaiters.map(\.continuation) + b.seqWaiters.map(\.continuation) + b.closeWaiters
    b.roomWaiters = []
    b.seqWaiters = []
    b.closeWaiters = []
    return resumed
  }
}
