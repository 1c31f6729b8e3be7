import Testing

@testable import SusiJSONLines

@Suite struct JSONLLineReaderTests {
  /// Reads everything, returning each line as text (or `<too long N>`) with its number.
  private func readAll(_ reader: inout LineReader) -> [String] {
    var out: [String] = []
    while true {
      switch reader.next() {
      case .lines(let lines):
        for line in lines {
          switch line.content {
          case .text(let bytes):
            out.append("\(line.number):\(String(decoding: bytes, as: UTF8.self))")
          case .tooLong(let length): out.append("\(line.number):<too long \(length)>")
          }
        }
      case .end: return out
      case .failed(let error): return out + ["failed: \(error)"]
      }
    }
  }

  @Test func splitsLinesWhateverTheReadSize() {
    let text = "one\ntwo\r\n\nthree\nlast without newline"
    let expected = ["1:one", "2:two\r", "3:", "4:three", "5:last without newline"]
    for chunkSize in [1, 2, 3, 5, 7, 64] {
      var reader = LineReader(
        input: JSONLMemoryInput(text, chunkSize: chunkSize), maximumLineLength: 100,
        chunkSize: chunkSize)
      #expect(readAll(&reader) == expected, "chunk size \(chunkSize)")
    }
  }

  @Test func reportsNothingForEmptyInput() {
    var reader = LineReader(input: JSONLMemoryInput(""), maximumLineLength: 10)
    #expect(readAll(&reader).isEmpty)
  }

  @Test func keepsLinesUpToTheLimitAndSkipsLongerOnes() {
    let limit = 10
    let exact = String(repeating: "a", count: limit)
    let over = String(repeating: "b", count: limit + 1)
    let text = "\(exact)\n\(exact)\r\n\(over)\n\(over)\r\nok\n\(over)"
    for chunkSize in [1, 3, 4, 64] {
      var reader = LineReader(
        input: JSONLMemoryInput(text, chunkSize: chunkSize), maximumLineLength: limit,
        chunkSize: chunkSize)
      #expect(
        readAll(&reader) == [
          "1:\(exact)", "2:\(exact)\r", "3:<too long 11>", "4:<too long 11>", "5:ok",
          "6:<too long 11>",
        ], "chunk size \(chunkSize)")
    }
  }

  @Test func skipsATenMebibyteLineWithoutHoldingIt() {
    let size = 10 << 20
    let input = JSONLGeneratedInput(
      prefix: "{\"type\":\"", fill: UInt8(ascii: "x"), count: size, suffix: "\"}\nnext\n")
    var reader = LineReader(input: input, maximumLineLength: 1 << 20)
    var seen: [String] = []
    var mostRetained = 0
    reading: while true {
      let chunk = reader.next()
      mostRetained = max(mostRetained, reader.retainedBytes)
      switch chunk {
      case .lines(let lines):
        for line in lines {
          switch line.content {
          case .text(let bytes): seen.append(String(decoding: bytes, as: UTF8.self))
          case .tooLong(let length): seen.append("too long \(length)")
          }
        }
      case .end, .failed: break reading
      }
    }
    #expect(seen == ["too long \(size + 11)", "next"])
    // The reader never holds much more than the limit (array growth may double it once).
    #expect(mostRetained <= 2 << 20 + 64 * 1024)
  }

  @Test func reportsAReadFailureAfterTheLinesBeforeIt() {
    struct Failing: JSONLinesInput {
      func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, JSONLinesIOError> {
        .failure(JSONLinesIOError("disk on fire"))
      }
    }
    var reader = LineReader(input: Failing(), maximumLineLength: 10)
    guard case .failed(let error) = reader.next() else {
      Issue.record("expected a failure")
      return
    }
    #expect(error.message == "disk on fire")
    guard case .end = reader.next() else {
      Issue.record("expected the end after a failure")
      return
    }
  }
}
