import Foundation

/// The one writer of output lines. Events go out in seq order; an error line waits until every
/// event accepted from earlier input lines has gone out, so answers appear in input order.
///
/// A dedicated thread does the blocking write(2) calls. It writes whatever is ready the moment
/// it wakes, so a line never waits for more lines (when many are ready at once they share one
/// call). Lines are whole when handed over, so they never interleave mid-line.
final class OrderedOutput: @unchecked Sendable {
  /// An error line held until the event with seq `after` has been queued.
  private struct HeldLine {
    var after: Int
    var bytes: [UInt8]
  }

  // Everything below is guarded by `condition`.
  private let condition = NSCondition()
  private var ready: [UInt8] = []
  private var held: [HeldLine] = []
  private var heldBytes = 0
  /// The seq of the last event queued for writing.
  private var queuedSeq: Int
  /// Bytes handed to the output and not yet written.
  private var writingBytes = 0
  private var closing = false
  private var closed = false
  private var failure: JSONLinesIOError?
  private var roomWaiters: [(seq: Int, continuation: CheckedContinuation<Void, Never>)] = []
  private var seqWaiters: [(seq: Int, continuation: CheckedContinuation<Void, Never>)] = []
  private var closeWaiters: [CheckedContinuation<Void, Never>] = []

  private let output: any JSONLinesOutput
  /// Called once, from the writing thread, when a write fails.
  private let onFailure: @Sendable (JSONLinesIOError) -> Void
  /// How far (in events) the writer may fall behind accepted input before input waits.
  let maximumLag: Int
  /// How many bytes may wait to be written before input waits.
  let maximumBufferedBytes: Int

  /// - Parameter seq: the seq of the last event already in the log; later events are written.
  init(
    output: any JSONLinesOutput, seq: Int, maximumLag: Int = 4096,
    maximumBufferedBytes: Int = 4 << 20,
    onFailure: @escaping @Sendable (JSONLinesIOError) -> Void = { _ in }
  ) {
    self.output = output
    self.onFailure = onFailure
    self.queuedSeq = seq
    self.maximumLag = maximumLag
    self.maximumBufferedBytes = maximumBufferedBytes
  }

  /// Starts the writing thread.
  func start() {
    let thread = Thread { [self] in writeLoop() }
    thread.name = "susi-jsonl-output"
    thread.start()
  }

  /// Why output stopped, once it has (the reader went away).
  var outputFailure: JSONLinesIOError? {
    condition.lock()
    defer { condition.unlock() }
    return failure
  }

  /// Queues a line that is not an event and depends on none (the `--replay-first` state).
  func line(_ bytes: [UInt8]) {
    condition.lock()
    append(bytes)
    condition.signal()
    condition.unlock()
  }

  /// Queues the event `seq`. Events must come in seq order; ones already queued are ignored.
  func event(seq: Int, line: [UInt8]) {
    condition.lock()
    guard seq > queuedSeq else {
      condition.unlock()
      return
    }
    queuedSeq = seq
    append(line)
    releaseHeld()
    let resumed = takeSatisfiedWaiters()
    condition.signal()
    condition.unlock()
    for continuation in resumed { continuation.resume() }
  }

  /// Queues an error line to go out after the event `seq` (the last event accepted from input
  /// before the line that failed).
  func error(_ bytes: [UInt8], after seq: Int) {
    condition.lock()
    if held.isEmpty && seq <= queuedSeq {
      append(bytes)
      condition.signal()
    } else {
      held.append(HeldLine(after: seq, bytes: bytes))
      heldBytes += bytes.count
    }
    condition.unlock()
  }

  /// Waits while the output lags too far behind input that has been accepted through `seq`
  /// (the reader of stdout is slow), so memory stays bounded.
  func waitForRoom(acceptedThrough seq: Int) async {
    if roomAvailable(seq) { return }
    await withCheckedContinuation { continuation in
      condition.lock()
      if hasRoom(seq) {
        condition.unlock()
        continuation.resume()
        return
      }
      roomWaiters.append((seq, continuation))
      condition.unlock()
    }
  }

  /// Waits until the event `seq` has been queued.
  func waitUntilQueued(_ seq: Int) async {
    await withCheckedContinuation { continuation in
      condition.lock()
      if queuedSeq >= seq || closed || closing {
        condition.unlock()
        continuation.resume()
        return
      }
      seqWaiters.append((seq, continuation))
      condition.unlock()
    }
  }

  /// Writes everything queued (held error lines too), stops the thread and returns when the
  /// last byte is out.
  func close() async {
    await withCheckedContinuation { continuation in
      condition.lock()
      if closed {
        condition.unlock()
        continuation.resume()
        return
      }
      closing = true
      for line in held { append(line.bytes) }
      held = []
      heldBytes = 0
      closeWaiters.append(continuation)
      let resumed = takeAllWaiters()
      condition.signal()
      condition.unlock()
      for continuation in resumed { continuation.resume() }
    }
  }

  private func roomAvailable(_ acceptedSeq: Int) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    return hasRoom(acceptedSeq)
  }

  // MARK: - Under the lock

  private func append(_ bytes: [UInt8]) {
    guard failure == nil else { return }
    ready.append(contentsOf: bytes)
    ready.append(0x0a)
  }

  private func releaseHeld() {
    var released = 0
    while released < held.count, held[released].after <= queuedSeq {
      append(held[released].bytes)
      heldBytes -= held[released].bytes.count
      released += 1
    }
    if released > 0 { held.removeFirst(released) }
  }

  private func hasRoom(_ acceptedSeq: Int) -> Bool {
    if failure != nil || closing || closed { return true }
    return acceptedSeq - queuedSeq <= maximumLag
      && ready.count + heldBytes + writingBytes <= maximumBufferedBytes
  }

  private func takeSatisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
    var resumed: [CheckedContinuation<Void, Never>] = []
    if !roomWaiters.isEmpty {
      roomWaiters.removeAll { waiter in
        guard hasRoom(waiter.seq) else { return false }
        resumed.append(waiter.continuation)
        return true
      }
    }
    if !seqWaiters.isEmpty {
      seqWaiters.removeAll { waiter in
        guard waiter.seq <= queuedSeq else { return false }
        resumed.append(waiter.continuation)
        return true
      }
    }
    return resumed
  }

  private func takeAllWaiters() -> [CheckedContinuation<Void, Never>] {
    let resumed = roomWaiters.map(\.continuation) + seqWaiters.map(\.continuation)
    roomWaiters = []
    seqWaiters = []
    return resumed
  }

  // MARK: - The writing thread

  private func writeLoop() {
    var batch: [UInt8] = []
    condition.lock()
    while true {
      while ready.isEmpty && !closing { condition.wait() }
      if ready.isEmpty && closing { break }
      swap(&batch, &ready)
      writingBytes = batch.count
      condition.unlock()

      let result = batch.withUnsafeBytes { output.write($0) }
      batch.removeAll(keepingCapacity: batch.capacity <= 1 << 20)

      condition.lock()
      writingBytes = 0
      var newFailure: JSONLinesIOError?
      if case .failure(let error) = result, failure == nil {
        failure = error
        newFailure = error
        ready = []
        held = []
        heldBytes = 0
      }
      let resumed = takeSatisfiedWaiters()
      if !resumed.isEmpty || newFailure != nil {
        condition.unlock()
        for continuation in resumed { continuation.resume() }
        if let newFailure { onFailure(newFailure) }
        condition.lock()
      }
    }
    closed = true
    let waiters = closeWaiters + takeAllWaiters()
    closeWaiters = []
    condition.unlock()
    for continuation in waiters { continuation.resume() }
  }
}
