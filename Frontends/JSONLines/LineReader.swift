#if canImport(Glibc)
  import Glibc
#endif

/// One line of input, numbered from 1.
struct InputLine: Sendable {
  enum Content: Sendable {
    /// The line without its `\n` (a `\r` before it is still there).
    case text(ArraySlice<UInt8>)
    /// The line was longer than the limit; only its length was kept.
    case tooLong(length: Int)
  }

  var number: Int
  var content: Content
}

/// What one read of the input produced.
enum InputChunk: Sendable {
  /// Complete lines, in order (possibly none, when a read ended mid-line).
  case lines([InputLine])
  /// The input ended; a last line without a newline was reported before this.
  case end
  /// Reading failed; nothing more will come.
  case failed(JSONLinesIOError)
}

/// Splits an input stream into lines while holding at most `maximumLineLength` bytes of any one
/// line: a longer line is skipped to its newline and reported by length only, so a 10 MiB line
/// costs no more memory than a 1 MiB one.
///
/// Lines are slices of the buffer they were read into, so complete lines are never copied.
struct LineReader {
  let input: any JSONLinesInput
  /// The longest line kept, not counting its `\n` or a `\r` before it.
  let maximumLineLength: Int
  /// How much one read(2) asks for.
  let chunkSize: Int

  /// The start of a line that did not end in the last chunk.
  private var partial: [UInt8] = []
  /// Bytes of the current line seen so far while it is being skipped; nil when not skipping.
  private var skipped: Int?
  private var lastSkippedByte: UInt8 = 0
  private var lineNumber = 0
  private var ended = false

  init(input: any JSONLinesInput, maximumLineLength: Int, chunkSize: Int = 64 * 1024) {
    self.input = input
    self.maximumLineLength = maximumLineLength
    self.chunkSize = max(1, chunkSize)
  }

  /// The most bytes this reader holds on to between reads (for memory checks).
  var retainedBytes: Int { partial.capacity }

  /// Reads once and returns the lines completed by that read.
  mutating func next() -> InputChunk {
    if ended { return .end }
    var chunk = [UInt8](repeating: 0, count: chunkSize)
    let result = chunk.withUnsafeMutableBytes { input.read(into: $0) }
    let count: Int
    switch result {
    case .failure(let error):
      ended = true
      return .failed(error)
    case .success(let n):
      count = min(n, chunkSize)
    }
    if count == 0 {
      ended = true
      if let last = finishLastLine() { return .lines([last]) }
      return .end
    }
    return .lines(split(chunk, count: count))
  }

  private mutating func split(_ chunk: [UInt8], count: Int) -> [InputLine] {
    var lines: [InputLine] = []
    var start = 0
    chunk.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return }
      while start < count {
        guard let found = memchr(base + start, 0x0a, count - start) else { break }
        let end = base.distance(to: UnsafeRawPointer(found))
        lines.append(completeLine(chunk, start..<end))
        start = end + 1
      }
    }
    if start < count { keepPartial(chunk[start..<count]) }
    return lines
  }

  /// The line ending at a newline: the kept partial line (if any) followed by `segment`.
  private mutating func completeLine(_ chunk: [UInt8], _ segment: Range<Int>) -> InputLine {
    lineNumber += 1
    if let seen = skipped {
      let total = seen + segment.count
      let last = segment.isEmpty ? lastSkippedByte : chunk[segment.upperBound - 1]
      skipped = nil
      return InputLine(
        number: lineNumber, content: .tooLong(length: contentLength(total, last: last)))
    }
    if partial.isEmpty {
      let line = chunk[segment]
      let length = contentLength(line.count, last: line.last)
      if length > maximumLineLength {
        return InputLine(number: lineNumber, content: .tooLong(length: length))
      }
      return InputLine(number: lineNumber, content: .text(line))
    }
    var line = partial
    partial = []
    line.append(contentsOf: chunk[segment])
    let length = contentLength(line.count, last: line.last)
    if length > maximumLineLength {
      return InputLine(number: lineNumber, content: .tooLong(length: length))
    }
    return InputLine(number: lineNumber, content: .text(line[...]))
  }

  /// Holds the unfinished end of a chunk, or starts skipping once the line is surely too long
  /// (one byte of slack for a `\r` before the newline).
  private mutating func keepPartial(_ rest: ArraySlice<UInt8>) {
    if let seen = skipped {
      skipped = seen + rest.count
      lastSkippedByte = rest.last ?? lastSkippedByte
      return
    }
    if partial.count + rest.count > maximumLineLength + 1 {
      skipped = partial.count + rest.count
      lastSkippedByte = rest.last ?? 0
      partial = []
      return
    }
    partial.append(contentsOf: rest)
  }

  /// A last line that the input ended without a newline.
  private mutating func finishLastLine() -> InputLine? {
    if let seen = skipped {
      lineNumber += 1
      skipped = nil
      return InputLine(
        number: lineNumber, content: .tooLong(length: contentLength(seen, last: lastSkippedByte)))
    }
    guard !partial.isEmpty else { return nil }
    lineNumber += 1
    let line = partial
    partial = []
    let length = contentLength(line.count, last: line.last)
    if length > maximumLineLength {
      return InputLine(number: lineNumber, content: .tooLong(length: length))
    }
    return InputLine(number: lineNumber, content: .text(line[...]))
  }

  private func contentLength(_ count: Int, last: UInt8?) -> Int {
    last == UInt8(ascii: "\r") ? count - 1 : count
  }
}
