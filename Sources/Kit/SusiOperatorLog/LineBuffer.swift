import Foundation
import Synchronization

/// Whole lines on their way to a file descriptor, written by a thread of their own so that a
/// server's threads never wait for standard error: not for each request's `write`, and not for
/// a reader (a terminal, a pipe to a log collector) that is slow for a while.
///
/// A line goes into a buffer; the first line into an empty buffer wakes the writer thread, which
/// gives the next lines `pause` to arrive and then writes all of them with one `write`. Lines
/// keep their order and are never split or interleaved. The buffer holds at most `limit` bytes:
/// a line that does not fit is written by its own thread, after what is buffered, as if there
/// were no buffer (so memory stays bounded and nothing is dropped when standard error is stuck).
/// `flush()` writes what is buffered now; `standardError` is flushed when the process exits
/// normally. What is buffered when the process is killed (at most `pause` of lines) is lost.
final class LineBuffer: Sendable {
  /// The operators' log on standard error, flushed when the process exits. Its writer wakes at
  /// most a hundred times a second: at a busy server's pace, waking every millisecond cost a
  /// context switch every few requests, taken from the threads answering them.
  static let standardError: LineBuffer = {
    let buffer = LineBuffer(
      limit: 1 << 20, pause: .milliseconds(10), sink: LineBuffer.write(toDescriptor: 2))
    atexit { LineBuffer.standardError.flush() }
    return buffer
  }()

  private let limit: Int
  private let sink: @Sendable ([UInt8]) -> Void
  private let pending = Mutex<[UInt8]>([])
  /// Held while taking the buffer and writing it, so that writes leave in the order their lines
  /// came in.
  private let writing = Mutex(())
  private let wake = DispatchSemaphore(value: 0)

  /// - Parameters:
  ///   - limit: the most bytes buffered.
  ///   - pause: how long the writer waits after a line wakes it, for more to arrive.
  ///   - sink: writes bytes, whole.
  init(limit: Int, pause: Duration, sink: @escaping @Sendable ([UInt8]) -> Void) {
    self.limit = limit
    self.sink = sink
    let seconds =
      Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18
    // The thread keeps the buffer for the life of the process.
    Thread.detachNewThread { [self] in
      while true {
        wake.wait()
        Thread.sleep(forTimeInterval: seconds)
        flush()
      }
    }
  }

  /// Buffers `line` (whole lines, with their newlines).
  func append(_ line: [UInt8]) {
    enum Next { case none, wakeWriter, writeHere }
    let next = pending.withLock { bytes -> Next in
      guard bytes.count + line.count <= limit else { return .writeHere }
      let wasEmpty = bytes.isEmpty
      bytes += line
      return wasEmpty ? .wakeWriter : .none
    }
    switch next {
    case .none: break
    case .wakeWriter: wake.signal()
    case .writeHere:
      writing.withLock { _ in
        writeBuffered()
        sink(line)
      }
    }
  }

  /// Writes what is buffered, now, on the calling thread.
  func flush() {
    writing.withLock { _ in writeBuffered() }
  }

  /// Takes the buffer and writes it; the caller holds `writing`. The buffer left in its place
  /// has room for the next lines already, so they are added without growing it line by line.
  private func writeBuffered() {
    var next: [UInt8] = []
    next.reserveCapacity(Swift.min(limit, Self.initialCapacity))
    let bytes = pending.withLock { bytes in
      if bytes.isEmpty { return bytes }
      swap(&bytes, &next)
      return next
    }
    if !bytes.isEmpty { sink(bytes) }
  }

  /// The room a fresh buffer starts with: a few milliseconds of request lines at a busy server's
  /// pace (more make it grow, a few times in a pause at most).
  private static let initialCapacity = 16 * 1024

  /// A sink writing to `descriptor` until every byte is written or the descriptor fails.
  static func write(toDescriptor descriptor: Int32) -> @Sendable ([UInt8]) -> Void {
    { bytes in
      var done = 0
      while done < bytes.count {
        let n = bytes[done...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        done += n
      }
    }
  }
}
