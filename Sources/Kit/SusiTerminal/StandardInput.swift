import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What reading raw bytes gave.
enum ByteRead: Equatable, Sendable {
  case bytes([UInt8])
  case end
  case cancelled
}

/// Standard input as lines, read on a thread of its own with `poll` and `read`, so a read can be
/// cancelled (a self-pipe wakes it) and nothing blocks the cooperative thread pool.
public final class StandardInput: LineSource {
  /// A line longer than `maximumLineBytes` is cut; the rest up to the next line break is dropped.
  let maximumLineBytes: Int

  private struct Buffer {
    /// Bytes read (or given back) and not yet split or taken.
    var bytes: [UInt8] = []
    var splitter: LineSplitter
    var ended = false
    var reading = false
  }

  private let queue = DispatchQueue(label: "susi.standard-input")
  private let buffer: Mutex<Buffer>
  private let wakeRead: Int32
  private let wakeWrite: Int32
  private let descriptor: Int32

  /// Reads from `descriptor` (standard input unless a test says otherwise); lines are cut at
  /// `maximumLineBytes` (1 MiB).
  public init(descriptor: Int32 = 0, maximumLineBytes: Int = 1 << 20) {
    self.descriptor = descriptor
    self.maximumLineBytes = max(1, maximumLineBytes)
    buffer = Mutex(Buffer(splitter: LineSplitter(limit: self.maximumLineBytes)))
    var fds: [Int32] = [-1, -1]
    if pipe(&fds) == 0 {
      _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
      _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
    }
    wakeRead = fds[0]
    wakeWrite = fds[1]
  }

  deinit {
    if wakeRead >= 0 { close(wakeRead) }
    if wakeWrite >= 0 { close(wakeWrite) }
  }

  /// Whether standard input is a terminal.
  public static var isTerminal: Bool { isatty(0) == 1 }

  public func nextLine() async -> LineRead {
    await withCheckedContinuation { continuation in
      queue.async { continuation.resume(returning: self.readLine()) }
    }
  }

  public func cancel() {
    let reading = buffer.withLock { $0.reading }
    guard reading, wakeWrite >= 0 else { return }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  /// The bytes typed so far, unread (at least one byte), for the line editor; `.line` carries
  /// them as read, not as text.
  func nextBytes() async -> ByteRead {
    await withCheckedContinuation { continuation in
      queue.async { continuation.resume(returning: self.readBytes()) }
    }
  }

  /// Puts bytes the line editor did not use (typed after Enter) back in front of the input.
  func unread(_ bytes: [UInt8]) {
    guard !bytes.isEmpty else { return }
    buffer.withLock { $0.bytes.insert(contentsOf: bytes, at: 0) }
  }

  private func readBytes() -> ByteRead {
    drainWakePipe()
    buffer.withLock { $0.reading = true }
    defer { buffer.withLock { $0.reading = false } }
    while true {
      let taken = buffer.withLock { state -> ByteRead? in
        let bytes = state.splitter.takeUnfinished() + state.bytes
        state.bytes.removeAll()
        if !bytes.isEmpty { return .bytes(bytes) }
        return state.ended ? .end : nil
      }
      if let taken { return taken }
      if let cancelled = fill() { return cancelled }
    }
  }

  private func readLine() -> LineRead {
    drainWakePipe()
    buffer.withLock { $0.reading = true }
    defer { buffer.withLock { $0.reading = false } }
    while true {
      if let line = takeLine() { return line }
      if fill() != nil { return .cancelled }
    }
  }

  /// Waits for input and appends it to the buffer (or marks its end); `.cancelled` when
  /// `cancel` woke it instead.
  private func fill() -> ByteRead? {
    while true {
      var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
      if wakeRead >= 0 { fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)) }
      let ready = poll(&fds, nfds_t(fds.count), -1)
      if ready < 0 {
        if errno == EINTR { continue }
        buffer.withLock { $0.ended = true }
        return nil
      }
      if fds.count > 1, fds[1].revents != 0 {
        drainWakePipe()
        return .cancelled
      }
      guard fds[0].revents != 0 else { continue }
      var chunk = [UInt8](repeating: 0, count: 65_536)
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      buffer.withLock { state in
        if count <= 0 {
          state.ended = true
        } else {
          state.bytes.append(contentsOf: chunk[0..<count])
        }
      }
      return nil
    }
  }

  /// A complete line from the buffer (a longer one cut at `maximumLineBytes`, the rest of it
  /// skipped), the unterminated rest at the end of input, or nil when more must be read.
  private func takeLine() -> LineRead? {
    buffer.withLock { state in
      var rest = state.bytes[...]
      var line: LineRead?
      while line == nil, let piece = state.splitter.next(from: &rest) {
        switch piece {
        case .line(let bytes), .longLineStart(let bytes): line = .line(Self.text(bytes))
        case .longLineEnd: continue
        }
      }
      state.bytes = Array(rest)
      if let line { return line }
      guard state.ended else { return nil }
      switch state.splitter.finish() {
      case .line(let line): return .line(Self.text(line))
      case .longLineStart, .longLineEnd, nil: return .end
      }
    }
  }

  private static func text(_ bytes: ArraySlice<UInt8>) -> String {
    var line = bytes
    if line.last == 0x0D { line = line.dropLast() }
    return String(decoding: line, as: UTF8.self)
  }

  private func drainWakePipe() {
    guard wakeRead >= 0 else { return }
    var scratch = [UInt8](repeating: 0, count: 64)
    while scratch.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
  }
}
