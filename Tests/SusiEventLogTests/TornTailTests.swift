import Foundation
import SusiEventLog
import Testing

/// A crash mid-append leaves an incomplete final record; opening cuts it off with a warning.
@Suite struct TornTailTests {
  @Test func cutsALastRecordTornAtEveryByteOffset() throws {
    let directory = try TemporaryDirectory()
    let whole = try writeLog(at: directory.file("whole.jsonl"), count: 1000)
    let starts = lineStarts(whole)
    let lastStart = starts[999]
    #expect(starts.count == 1001 && starts[1000] == whole.count)
    let path = directory.file("torn.jsonl")
    for cut in lastStart..<whole.count {
      try writeFile(path, whole[0..<cut])
      try expectReopensTo999Records(path: path, tornBytes: cut - lastStart, tornOffset: lastStart)
    }
  }

  @Test func cutsAtOffsetsInsideTheLastThreeRecords() throws {
    let directory = try TemporaryDirectory()
    let whole = try writeLog(at: directory.file("whole.jsonl"), count: 1000)
    let starts = lineStarts(whole)
    let path = directory.file("torn.jsonl")
    for record in 998...1000 {
      let start = starts[record - 1]
      let end = starts[record]
      for cut in [start + 1, start + 13, (start + end) / 2, end - 19, end - 2, end - 1] {
        try writeFile(path, whole[0..<cut])
        let writer = try EventLogWriter(path: path, options: .init(fsync: .never))
        #expect(writer.recovery.lastSeq == record - 1)
        #expect(writer.recovery.tornTail?.line == record)
        #expect(writer.recovery.tornTail?.byteCount == cut - start)
        #expect(writer.recovery.byteLength == start)
        try writer.append(eventObject(seq: record))
        try writer.close()
        #expect(try readAll(path).records.map(\.seq) == Array(1...record))
      }
    }
  }

  @Test func cutsATailOfNulBytes() throws {
    let directory = try TemporaryDirectory()
    let whole = try writeLog(at: directory.file("whole.jsonl"), count: 1000)
    let starts = lineStarts(whole)
    let path = directory.file("zeros.jsonl")
    try writeFile(path, whole[0..<starts[999]] + [UInt8](repeating: 0, count: 4096))
    try expectReopensTo999Records(
      path: path, tornBytes: 4096, tornOffset: starts[999], kind: .zeroFilled)
  }

  @Test func cutsAFinalLineOfNothingButNulBytes() throws {
    // Space allocated but never written, ending in the newline of the record that filled it.
    let directory = try TemporaryDirectory()
    let whole = try writeLog(at: directory.file("whole.jsonl"), count: 1000)
    let starts = lineStarts(whole)
    var bytes = whole
    for index in starts[999]..<(whole.count - 1) { bytes[index] = 0 }
    let path = directory.file("zero-line.jsonl")
    try writeFile(path, bytes)
    try expectReopensTo999Records(
      path: path, tornBytes: whole.count - starts[999], tornOffset: starts[999],
      kind: .zeroFilled)
  }

  @Test func refusesANulByteInsideTheLastCompleteRecord() throws {
    // A complete record (it ends in its newline) was written whole: a NUL in it is damage, not
    // an interrupted write, and neither a writer nor a reader may drop it.
    let directory = try TemporaryDirectory()
    let whole = try writeLog(at: directory.file("whole.jsonl"), count: 10)
    let starts = lineStarts(whole)
    for position in [starts[9], starts[9] + 20, whole.count - 2] {
      var bytes = whole
      bytes[position] = 0
      let path = directory.file("nul-\(position).jsonl")
      try writeFile(path, bytes)
      let error = eventLogError { _ = try EventLogWriter(path: path) }
      #expect(error?.line == 10)
      #expect(error?.isCorruption == true)
      #expect(try fileBytes(path) == bytes)
      let readError = eventLogError { _ = try readAll(path) }
      #expect(readError?.line == 10)
    }
  }

  @Test func treatsNulBytesBeforeTheLastLineAsCorruption() throws {
    let directory = try TemporaryDirectory()
    var bytes = try writeLog(at: directory.file("whole.jsonl"), count: 10)
    let starts = lineStarts(bytes)
    for index in starts[8]..<(starts[8] + 10) { bytes[index] = 0 }
    let path = directory.file("zero-middle.jsonl")
    try writeFile(path, bytes)
    let error = eventLogError { _ = try EventLogWriter(path: path) }
    #expect(error?.line == 9)
    #expect(error?.isCorruption == true)
  }

  @Test func cutsAFinalCompleteRecordWithoutItsNewline() throws {
    let directory = try TemporaryDirectory()
    let whole = try writeLog(at: directory.file("whole.jsonl"), count: 1000)
    let path = directory.file("no-newline.jsonl")
    try writeFile(path, whole.dropLast())
    try expectReopensTo999Records(
      path: path, tornBytes: whole.count - 1 - lineStarts(whole)[999],
      tornOffset: lineStarts(whole)[999])
  }

  @Test func readerIgnoresTheTornTailWithoutChangingTheFile() throws {
    let directory = try TemporaryDirectory()
    let whole = try writeLog(at: directory.file("whole.jsonl"), count: 20)
    let path = directory.file("torn.jsonl")
    let torn = Array(whole.dropLast(5))
    try writeFile(path, torn)
    let (records, reader) = try readAll(path)
    #expect(records.map(\.seq) == Array(1...19))
    #expect(reader.tornTail?.line == 20)
    #expect(reader.tornTail?.removed == false)
    #expect(try fileBytes(path) == torn)
  }

  private func expectReopensTo999Records(
    path: String, tornBytes: Int, tornOffset: Int,
    kind: EventLogTornTail.Kind = .unterminated,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let writer = try EventLogWriter(path: path, options: .init(fsync: .never))
    #expect(writer.recovery.recordCount == 999, sourceLocation: sourceLocation)
    #expect(writer.recovery.lastSeq == 999, sourceLocation: sourceLocation)
    #expect(writer.nextSeq == 1000, sourceLocation: sourceLocation)
    if tornBytes == 0 {
      #expect(writer.recovery.tornTail == nil, sourceLocation: sourceLocation)
    } else {
      #expect(
        writer.recovery.tornTail
          == EventLogTornTail(
            kind: kind, line: 1000, offset: tornOffset, byteCount: tornBytes, removed: true),
        sourceLocation: sourceLocation)
    }
    #expect(try fileBytes(path).count == tornOffset, sourceLocation: sourceLocation)
    try writer.append(eventObject(seq: 1000))
    try writer.close()
    let (records, reader) = try readAll(path)
    #expect(records.map(\.seq) == Array(1...1000), sourceLocation: sourceLocation)
    #expect(records.last?.object == eventObject(seq: 1000), sourceLocation: sourceLocation)
    #expect(reader.tornTail == nil, sourceLocation: sourceLocation)
  }
}
