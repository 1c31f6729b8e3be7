import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Reads events from a JSON-lines log file while it is being appended to.
///
/// Only complete lines count (a line still being written is left for the next read). To find a
/// seq without rereading the whole file, it remembers the offset of every 128th seq it has
/// passed, so memory stays small however long the log grows.
public final class LogFileHistory: EventHistory {
  /// The log file.
  public let path: String
  private let descriptor: Int32
  /// Offsets of lines whose seq is a multiple of `stride`, by seq / stride.
  private let checkpoints = Mutex<[Int: Int]>([:])
  private static let stride = 128
  private static let chunk = 64 << 10
  /// Longest line accepted; longer ones mean the file is not a log.
  private static let maximumLine = 32 << 20

  /// Opens `path` for reading.
  public init(path: String) throws(HistoryError) {
    self.path = path
    descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw HistoryError("cannot open the log \(path): \(String(cString: strerror(errno)))")
    }
  }

  deinit { close(descriptor) }

  /// The complete lines after `seq`, at most `limit`, read from the file.
  public func events(after seq: Int, limit: Int) throws(HistoryError) -> [FeedEvent] {
    guard limit > 0 else { return [] }
    var offset = startOffset(for: seq + 1)
    var result: [FeedEvent] = []
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: Self.chunk)
    var pendingStart = offset
    while result.count < limit {
      let n = buffer.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress!, $0.count, off_t(offset))
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw HistoryError("cannot read the log \(path): \(String(cString: strerror(errno)))")
      }
      if n == 0 { break }
      offset += n
      var lineStart = 0
      for i in 0..<n where buffer[i] == 0x0A {
        var line = pending
        line.append(contentsOf: buffer[lineStart..<i])
        let lineOffset = pendingStart
        pending.removeAll(keepingCapacity: true)
        pendingStart = offset - n + i + 1
        lineStart = i + 1
        if line.isEmpty { continue }
        // Most lines before the wanted seq are only skipped: read their seq without parsing.
        if let quick = Self.leadingSeq(line) {
          remember(quick, at: lineOffset)
          if quick <= seq { continue }
        }
        let event = try FeedEvent(line: line)
        remember(event.seq, at: lineOffset)
        if event.seq > seq {
          result.append(event)
          if result.count == limit { return result }
        }
      }
      pending.append(contentsOf: buffer[lineStart..<n])
      guard pending.count <= Self.maximumLine else {
        throw HistoryError("the log \(path) has a line longer than \(Self.maximumLine) bytes")
      }
    }
    return result
  }

  /// The seq of a line that starts `{"v":2,"seq":N,` or `{"seq":N,` (how the log writes
  /// them), or nil for any other shape.
  static func leadingSeq(_ line: [UInt8]) -> Int? {
    let v2 = Array(#"{"v":2,"seq":"#.utf8)
    let v1 = Array(#"{"seq":"#.utf8)
    var i: Int
    if line.starts(with: v2) {
      i = v2.count
    } else if line.starts(with: v1) {
      i = v1.count
    } else {
      return nil
    }
    var value = 0
    let first = i
    while i < line.count, line[i] >= 0x30, line[i] <= 0x39, i - first < 18 {
      value = value * 10 + Int(line[i] - 0x30)
      i += 1
    }
    guard i > first, i < line.count, line[i] == UInt8(ascii: ",") else { return nil }
    return value
  }

  /// The offset of the latest remembered line at or before `seq`, or 0.
  private func startOffset(for seq: Int) -> Int {
    checkpoints.withLock { points in
      var slot = seq / Self.stride
      while slot > 0 {
        if let offset = points[slot] { return offset }
        slot -= 1
      }
      return 0
    }
  }

  private func remember(_ seq: Int, at offset: Int) {
    guard seq % Self.stride == 0 else { return }
    checkpoints.withLock { $0[seq / Self.stride] = offset }
  }
}
