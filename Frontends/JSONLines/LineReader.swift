import SusiTerminal

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

/// Reads the input and numbers its lines, holding at most `maximumLineLength` bytes of any one
/// line (`LineSplitter`): a longer line is skipped to its newline and reported by length only,
/// so a 10 MiB line costs no more memory than a 1 MiB one.
///
/// Lines are slices of the buffer they were read into, so complete lines are never copied.
struct LineReader {
  let input: any JSONLinesInput
  /// The longest line kept, not counting its `\n` or a `\r` before it.
  let maximumLineLength: Int
  /// How much one read(2) asks for.
  let chunkSize: Int

  /// Keeps one byte more than the limit, for a `\r` before the newline.
  private var splitter: LineSplitter
  private var lineNumber = 0
  private var ended = false

  init(input: any JSONLinesInput, maximumLineLength: Int, chunkSize: Int = 64 * 1024) {
    self.input = input
    self.maximumLineLength = maximumLineLength
    self.chunkSize = max(1, chunkSize)
    splitter = LineSplitter(limit: maximumLineLength + 1)
  }

  /// The most bytes this reader holds on to between reads (for memory checks).
  var retainedBytes: Int { splitter.retainedBytes }

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
      if let last = splitter.finish().flatMap({ numbered($0) }) { return .lines([last]) }
      return .end
    }
    var rest = chunk[..<count]
    var lines: [InputLine] = []
    while let piece = splitter.next(from: &rest) {
      if let line = numbered(piece) { lines.append(line) }
    }
    return .lines(lines)
  }

  /// The input line a finished piece is; nil for the start of a long line (it is reported at
  /// its end, by length).
  private mutating func numbered(_ piece: LineSplitter.Piece) -> InputLine? {
    let length: Int
    switch piece {
    case .longLineStart: return nil
    case .longLineEnd(let total, let lastByte): length = contentLength(total, last: lastByte)
    case .line(let bytes):
      length = contentLength(bytes.count, last: bytes.last)
      if length <= maximumLineLength {
        lineNumber += 1
        return InputLine(number: lineNumber, content: .text(bytes))
      }
    }
    lineNumber += 1
    return InputLine(number: lineNumber, content: .tooLong(length: length))
  }

  private func contentLength(_ count: Int, last: UInt8?) -> Int {
    last == UInt8(ascii: "\r") ? count - 1 : count
  }
}
