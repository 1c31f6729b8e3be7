import Foundation

/// What the input thread hands over: decoded lines, in input order, or how input ended.
enum InputBatch: Sendable {
  case lines([DecodedLine])
  case end
  case failed(JSONLinesIOError)
}

/// Reads and decodes input on its own thread (read(2) blocks, and decoding there overlaps with
/// the store's work), handing batches to the async side through a small bounded queue: when the
/// consumer falls behind, the thread stops reading, so input waiting to be handled never takes
/// more than a few reads' worth of memory.
final class InputPump: @unchecked Sendable {
  // Everything below is guarded by `condition`.
  private let condition = NSCondition()
  private var queue: [InputBatch] = []
  private var head = 0
  private var waiting: CheckedContinuation<InputBatch, Never>?
  private var cancelled = false
  private let capacity: Int

  /// - Parameter capacity: how many reads may wait to be handled before the thread pauses.
  init(capacity: Int = 4) {
    self.capacity = max(1, capacity)
  }

  /// Starts the reading thread. It ends at the end of input, on a read error, or after `cancel`.
  /// Access-control intents are decoded only when `allowsAdministration`.
  func start(_ reader: LineReader, allowsAdministration: Bool) {
    let thread = Thread { [self] in
      var reader = reader
      while true {
        let batch: InputBatch
        switch reader.next() {
        case .lines(let lines):
          if lines.isEmpty { continue }
          batch = .lines(
            lines.map {
              LineDecoder.decode(
                $0, maximumLineLength: reader.maximumLineLength,
                allowsAdministration: allowsAdministration)
            })
        case .end: batch = .end
        case .failed(let error): batch = .failed(error)
        }
        guard put(batch) else { return }
        if case .lines = batch { continue }
        return
      }
    }
    thread.name = "susi-jsonl-input"
    thread.start()
  }

  /// Hands a chunk over, waiting while the queue is full. False once cancelled.
  private func put(_ chunk: InputBatch) -> Bool {
    condition.lock()
    while queue.count - head >= capacity && !cancelled { condition.wait() }
    if cancelled {
      condition.unlock()
      return false
    }
    if let waiting {
      self.waiting = nil
      condition.unlock()
      waiting.resume(returning: chunk)
      return true
    }
    queue.append(chunk)
    condition.unlock()
    return true
  }

  /// The next chunk, in input order; `.end` after `cancel`.
  func next() async -> InputBatch {
    await withCheckedContinuation { continuation in
      condition.lock()
      if cancelled {
        condition.unlock()
        continuation.resume(returning: .end)
        return
      }
      if head < queue.count {
        let chunk = queue[head]
        head += 1
        if head == queue.count {
          queue.removeAll(keepingCapacity: true)
          head = 0
        }
        condition.signal()
        condition.unlock()
        continuation.resume(returning: chunk)
        return
      }
      waiting = continuation
      condition.unlock()
    }
  }

  /// Stops handing out input: a waiting `next` returns `.end`, and the thread stops at its next
  /// hand-over (a read already blocked in the kernel stays blocked until input arrives or ends).
  func cancel() {
    condition.lock()
    cancelled = true
    queue = []
    head = 0
    let waiting = self.waiting
    self.waiting = nil
    condition.broadcast()
    condition.unlock()
    waiting?.resume(returning: .end)
  }
}
