import Foundation
import SusiEventLog
import Testing

@Suite struct EventLogReaderTests {
  @Test func readsBackWhatTheWriterWroteWithoutTheChecksum() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("events.jsonl")
    try writeLog(at: path, count: 50)
    let (records, reader) = try readAll(path)
    #expect(records.map(\.seq) == Array(1...50))
    #expect(records.map(\.object) == (1...50).map(eventObject(seq:)))
    #expect(records.allSatisfy { $0.version == 2 })
    #expect(records.map(\.line) == Array(1...50))
    #expect(reader.tornTail == nil)
    #expect(reader.lastSeq == 50)
    #expect(reader.validLength == (try fileBytes(path)).count)
  }

  @Test func readsVersionOneLinesAsVersionOne() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("v1.jsonl")
    let lines = [
      #"{"seq":1,"at":"2026-11-21T10:00:00.123Z","origin":"jsonl","type":"submitRating","payload":{"stars":4}}"#,
      #"{ "type": "logout", "seq": 2 }"#,
    ]
    try writeFile(path, Array((lines.joined(separator: "\n") + "\n").utf8))
    let (records, reader) = try readAll(path)
    #expect(records.map(\.version) == [1, 1])
    #expect(records.map(\.seq) == [1, 2])
    #expect(records.map(\.object) == lines.map { Array($0.utf8) })
    #expect(reader.tornTail == nil)
  }

  @Test func readsAMixOfVersionOneAndVersionTwoLines() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("mixed.jsonl")
    try writeFile(path, Array(#"{"seq":1,"type":"a"}\#n{"seq":2,"type":"b"}\#n"#.utf8))
    let writer = try EventLogWriter(path: path)
    #expect(writer.recovery.lastSeq == 2)
    try writer.append(eventObject(seq: 3))
    try writer.close()
    let (records, _) = try readAll(path)
    #expect(records.map(\.version) == [1, 1, 2])
    #expect(records.map(\.seq) == [1, 2, 3])
  }

  @Test func readsALogThatAWriterHoldsOpen() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("busy.jsonl")
    let writer = try EventLogWriter(path: path)
    for seq in 1...10 { try writer.append(eventObject(seq: seq)) }
    let (records, _) = try readAll(path)
    #expect(records.count == 10)
    try writer.close()
  }

  @Test func streamsThroughABufferSmallerThanTheLog() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("small-buffer.jsonl")
    try writeLog(at: path, count: 300)
    for bufferSize in [64, 100, 257, 4096] {
      let (records, reader) = try readAll(path, bufferSize: bufferSize)
      #expect(records.map(\.seq) == Array(1...300))
      #expect(records.map(\.object) == (1...300).map(eventObject(seq:)))
      #expect(reader.tornTail == nil)
    }
  }

  @Test func lendsRecordsWithoutCopying() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("views.jsonl")
    try writeLog(at: path, count: 20)
    let reader = try EventLogReader(path: path)
    var seqs: [Int] = []
    var objects: [[UInt8]] = []
    try reader.forEachRecord { view in
      seqs.append(view.seq)
      objects.append(Array(view.object))
    }
    #expect(seqs == Array(1...20))
    #expect(objects == (1...20).map(eventObject(seq:)))
  }

  @Test func readsAnEmptyLogAsNoRecords() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("empty.jsonl")
    try writeFile(path, [UInt8]())
    let (records, reader) = try readAll(path)
    #expect(records.isEmpty)
    #expect(reader.lastSeq == nil)
    #expect(reader.tornTail == nil)
  }

  @Test func acceptsALaterStartOnlyWhenAsked() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("later.jsonl")
    try writeFile(path, Array(#"{"seq":41,"type":"a"}\#n{"seq":42,"type":"b"}\#n"#.utf8))
    let error = eventLogError { _ = try readAll(path) }
    #expect(error?.code == .seqOutOfOrder)
    #expect(error?.line == 1)
    let (records, _) = try readAll(path, firstSeq: nil)
    #expect(records.map(\.seq) == [41, 42])
    #expect(try readAll(path, firstSeq: 41).records.count == 2)
  }

  @Test func reportsSeqGapsAndDuplicatesWithTheirLine() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("gap.jsonl")
    let cases: [(String, Int)] = [
      (#"{"seq":1}\#n{"seq":2}\#n{"seq":4}\#n"#, 3),
      (#"{"seq":1}\#n{"seq":2}\#n{"seq":2}\#n{"seq":3}\#n"#, 3),
      (#"{"seq":1}\#n{"seq":3}\#n{"seq":2}\#n"#, 2),
    ]
    for (text, line) in cases {
      try writeFile(path, Array(text.utf8))
      let error = eventLogError { _ = try readAll(path) }
      #expect(error?.code == .seqOutOfOrder)
      #expect(error?.line == line)
    }
  }

  @Test func rejectsLinesThatAreNotRecords() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("bad.jsonl")
    let cases: [(String, EventLogError.Code)] = [
      ("not json", .malformedLine),
      ("[1,2]", .malformedLine),
      ("", .malformedLine),
      (#"{"type":"noSeq"}"#, .malformedLine),
      (#"{"seq":"2"}"#, .malformedLine),
      (#"{"seq":2.5}"#, .malformedLine),
      (#"{"seq":2,"crc":"00000000"}"#, .malformedLine),
      (#"{"v":3,"seq":2,"type":"future"}"#, .unsupportedVersion),
      (#"{"seq":2,"v":2,"type":"reordered"}"#, .malformedLine),
      (#"{"v":2,"seq":2,"type":"noChecksum"}"#, .malformedLine),
      (#"{"v":2,"seq":2,"type":"shortChecksum","crc":"1a2b3c"}"#, .malformedLine),
      (#"{"v":2,"seq":2,"type":"upperCase","crc":"1A2B3C4D"}"#, .malformedLine),
      (#"{"v":2,"seq":02,"type":"leadingZero","crc":"00000000"}"#, .malformedLine),
      (#"{"v":2,"seq":2,"type":"wrongChecksum","crc":"00000000"}"#, .checksumMismatch),
    ]
    for (line, code) in cases {
      try writeFile(path, Array(#"{"seq":1}\#n\#(line)\#n{"seq":3}\#n"#.utf8))
      let reader = try EventLogReader(path: path)
      #expect(try reader.next()?.seq == 1)
      let error = eventLogError { _ = try reader.next() }
      #expect(error?.code == code, "\(line)")
      #expect(error?.line == 2, "\(line)")
      #expect(error?.isCorruption == true)
      #expect(error?.description.contains(path + ":2:") == true)
      // The reader stays stopped: nothing after the bad line.
      #expect(eventLogError { _ = try reader.next() } == error)
    }
  }

  @Test func readsTheChecksumDigitsAndRefusesAnyOtherByteAmongThem() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("digits.jsonl")
    let object = #"{"v":2,"seq":2,"type":"x""#
    let crc = CRC32C.checksum(Array(object.utf8))
    let digits = Array(String(crc, radix: 16).leftPadded(to: 8).utf8)
    func read(_ digits: [UInt8]) throws -> EventLogError.Code? {
      let line = Array(object.utf8) + Array(#","crc":""#.utf8) + digits + Array(#""}"#.utf8)
      try writeFile(path, Array(#"{"seq":1}\#n"#.utf8) + line + [0x0A])
      let reader = try EventLogReader(path: path)
      _ = try reader.next()
      return eventLogError { _ = try reader.next() }?.code
    }
    #expect(try read(digits) == nil)
    // Every byte in one place; in every place, those next to the digits' ranges and a few more.
    let edges: [UInt8] =
      [0x01, 0x20, 0x22, 0x2F, 0x30, 0x39, 0x3A, 0x40, 0x41, 0x46, 0x47, 0x60]
      + [0x61, 0x66, 0x67, 0x7F, 0x80, 0xB0, 0xE6, 0xFF]
    let cases = (0..<8).flatMap { position in
      (position == 5 ? Array(UInt8.min...UInt8.max) : edges).map { (position, $0) }
    }
    for (position, byte) in cases where byte != 0x0A && byte != 0 {
      var changed = digits
      changed[position] = byte
      let isHex = (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
      let expected: EventLogError.Code? =
        byte == digits[position] ? nil : isHex ? .checksumMismatch : .malformedLine
      #expect(try read(changed) == expected, "byte \(byte) at \(position)")
    }
  }

  @Test func rejectsLinesLongerThanTheLimit() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("long.jsonl")
    let long = #"{"seq":2,"text":"\#(String(repeating: "a", count: 5000))"}"#
    try writeFile(path, Array(#"{"seq":1}\#n\#(long)\#n"#.utf8))
    let reader = try EventLogReader(path: path, maximumLineLength: 1000, bufferSize: 64)
    #expect(try reader.next()?.seq == 1)
    let error = eventLogError { _ = try reader.next() }
    #expect(error?.code == .lineTooLong)
    #expect(error?.line == 2)
    let (records, _) = try readAll(path, bufferSize: 64)
    #expect(records.count == 2)
  }

  @Test func reportsAMissingFileAsAFileError() throws {
    let directory = try TemporaryDirectory()
    let error = eventLogError { _ = try EventLogReader(path: directory.file("absent.jsonl")) }
    #expect(error?.code == .fileError)
    #expect(error?.errno == ENOENT)
  }
}

extension String {
  fileprivate func leftPadded(to length: Int) -> String {
    String(repeating: "0", count: max(0, length - count)) + self
  }
}
