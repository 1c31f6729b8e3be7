import Testing

@testable import SusiTerminal

/// The one line splitter both standard-input readers use: bounded, pure, any read size.
@Suite struct LineSplitterTests {
  /// Everything `text` splits into when fed in pieces of `size` bytes, then ended; each piece
  /// as text: a line as it is, a long line's start as `start:…`, its end as `end:length:last`.
  func split(_ text: String, limit: Int, size: Int) -> [String] {
    var splitter = LineSplitter(limit: limit)
    let bytes = Array(text.utf8)
    var out: [String] = []
    var offset = 0
    while offset < bytes.count {
      var piece = bytes[offset..<min(offset + size, bytes.count)]
      offset += piece.count
      while let found = splitter.next(from: &piece) { out.append(describe(found)) }
      #expect(piece.isEmpty)
    }
    if let last = splitter.finish() { out.append(describe(last)) }
    #expect(splitter.finish() == nil)
    return out
  }

  func describe(_ piece: LineSplitter.Piece) -> String {
    switch piece {
    case .line(let bytes): String(decoding: bytes, as: UTF8.self)
    case .longLineStart(let bytes): "start:" + String(decoding: bytes, as: UTF8.self)
    case .longLineEnd(let length, let lastByte): "end:\(length):\(Character(.init(lastByte)))"
    }
  }

  @Test func splitsAtLineBreaksWhateverTheReadSize() {
    for size in [1, 2, 3, 7, 100] {
      #expect(
        split("one\ntwo\r\n\nthree", limit: 10, size: size) == ["one", "two\r", "", "three"],
        "read size \(size)")
    }
  }

  @Test func aLastLineWithoutALineBreakCountsAndNothingAfterTheLastBreak() {
    #expect(split("last", limit: 10, size: 2) == ["last"])
    #expect(split("line\n", limit: 10, size: 2) == ["line"])
    #expect(split("", limit: 10, size: 2) == [])
    #expect(split("\n", limit: 10, size: 1) == [""])
  }

  @Test func keepsLinesUpToTheLimitAndCutsLongerOnesAtIt() {
    for size in [1, 3, 4, 100] {
      #expect(
        split("abcd\nabcde\nok\nabcdefgh\r\nx", limit: 4, size: size) == [
          "abcd", "start:abcd", "end:5:e", "ok", "start:abcd", "end:9:\r", "x",
        ], "read size \(size)")
    }
  }

  @Test func aLongLineAtTheEndOfInputEndsThere() {
    for size in [1, 5, 100] {
      #expect(split("abcdefg", limit: 3, size: size) == ["start:abc", "end:7:g"])
    }
  }

  /// The start of a long line comes as soon as the line is known to be longer, not at its end.
  @Test func aLongLineStartsBeforeItsEndHasBeenRead() {
    var splitter = LineSplitter(limit: 3)
    var first = Array("abcdef".utf8)[...]
    #expect(splitter.next(from: &first) == .longLineStart(Array("abc".utf8)[...]))
    #expect(splitter.next(from: &first) == nil)
    var second = Array("gh\nok\n".utf8)[...]
    #expect(splitter.next(from: &second) == .longLineEnd(length: 8, lastByte: UInt8(ascii: "h")))
    #expect(splitter.next(from: &second) == .line(Array("ok".utf8)[...]))
  }

  @Test func holdsNoMoreThanTheLimitOfALongLine() {
    var splitter = LineSplitter(limit: 1000)
    var mostRetained = 0
    for _ in 0..<1000 {
      var chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 999)[...]
      while splitter.next(from: &chunk) != nil {}
      mostRetained = max(mostRetained, splitter.retainedBytes)
    }
    #expect(mostRetained <= 2000)
    #expect(splitter.finish() == .longLineEnd(length: 999_000, lastByte: UInt8(ascii: "x")))
  }

  @Test func theUnfinishedLineCanBeTakenBackAsBytes() {
    var splitter = LineSplitter(limit: 10)
    var bytes = Array("done\nhalf".utf8)[...]
    #expect(splitter.next(from: &bytes) == .line(Array("done".utf8)[...]))
    #expect(splitter.next(from: &bytes) == nil)
    #expect(splitter.takeUnfinished() == Array("half".utf8))
    #expect(splitter.finish() == nil)
  }
}
