import Foundation
import SusiEventLog
import Testing

/// Damage before the tail is never repaired silently: readers stop at it, writers refuse to open.
@Suite struct CorruptionTests {
  @Test func reportsAFlippedByteWithItsLineNumber() throws {
    let directory = try TemporaryDirectory()
    let whole = try writeLog(at: directory.file("whole.jsonl"), count: 200)
    let starts = lineStarts(whole)
    let path = directory.file("flipped.jsonl")
    // (line, byte within the line): prefix, seq digits, payload, crc digits, closing brace,
    // and the newline itself. Line 200 is the last complete one: damage there is corruption too.
    let positions = [
      (1, 0), (1, 3), (57, 9), (57, 13), (100, 40), (100, -12), (150, -3), (150, -2),
      (170, -1), (199, -1), (200, 30),
    ]
    for (line, column) in positions {
      let index = column >= 0 ? starts[line - 1] + column : starts[line] + column
      var bytes = whole
      bytes[index] ^= 0x04
      try writeFile(path, bytes)

      let reader = try EventLogReader(path: path)
      var seen: [Int] = []
      let readError = eventLogError { try reader.forEachRecord { seen.append($0.seq) } }
      #expect(readError?.line == line, "byte \(column) of line \(line)")
      #expect(readError?.isCorruption == true)
      #expect(seen == Array(1..<line), "the reader yields nothing after line \(line)")

      let openError = eventLogError { _ = try EventLogWriter(path: path) }
      #expect(openError?.line == line)
      #expect(openError?.isCorruption == true)
      #expect(try fileBytes(path) == bytes, "nothing is cut")
    }
  }

  @Test func namesTheChecksumMismatch() throws {
    let directory = try TemporaryDirectory()
    var bytes = try writeLog(at: directory.file("whole.jsonl"), count: 10)
    let starts = lineStarts(bytes)
    bytes[starts[4] + 30] ^= 0x01
    let path = directory.file("crc.jsonl")
    try writeFile(path, bytes)
    let error = eventLogError { _ = try readAll(path) }
    #expect(error?.code == .checksumMismatch)
    #expect(error?.line == 5)
    #expect(error?.message.contains("checksum mismatch") == true)
  }

  @Test func reportsAMissingRecordAsASeqGap() throws {
    let directory = try TemporaryDirectory()
    let whole = try writeLog(at: directory.file("whole.jsonl"), count: 10)
    let starts = lineStarts(whole)
    let path = directory.file("gap.jsonl")
    try writeFile(path, whole[0..<starts[3]] + whole[starts[4]...])
    let error = eventLogError { _ = try EventLogWriter(path: path) }
    #expect(error?.code == .seqOutOfOrder)
    #expect(error?.line == 4)
    #expect(error?.message.contains("seq 5 follows seq 3") == true)
  }

  @Test func reportsARepeatedRecordAsASeqDuplicate() throws {
    let directory = try TemporaryDirectory()
    let whole = try writeLog(at: directory.file("whole.jsonl"), count: 10)
    let starts = lineStarts(whole)
    let path = directory.file("repeat.jsonl")
    try writeFile(path, whole[0..<starts[10]] + whole[starts[9]..<starts[10]])
    let error = eventLogError { _ = try EventLogWriter(path: path) }
    #expect(error?.code == .seqOutOfOrder)
    #expect(error?.line == 11)
  }
}
