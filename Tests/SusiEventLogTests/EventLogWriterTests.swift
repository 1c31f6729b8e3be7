import Foundation
import SusiEventLog
import Testing

@Suite struct EventLogWriterTests {
  @Test func writesTheChecksumAsTheLastMemberOverTheBytesBeforeIt() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("format.jsonl")
    let writer = try EventLogWriter(path: path)
    try writer.append(Array(#"{"v":2,"seq":1,"type":"logout","payload":{}}"#.utf8))
    try writer.close()
    // CRC-32C of the bytes before ,"crc":" computed independently (bit by bit, in Python).
    let expected = #"{"v":2,"seq":1,"type":"logout","payload":{},"crc":"b44ecea8"}"# + "\n"
    #expect(String(decoding: try fileBytes(path), as: UTF8.self) == expected)
    let (records, _) = try readAll(path)
    #expect(records.first?.object == Array(#"{"v":2,"seq":1,"type":"logout","payload":{}}"#.utf8))
  }

  @Test func createsTheFileReadableByItsOwnerOnly() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("private.jsonl")
    let writer = try EventLogWriter(path: path)
    #expect(writer.recovery.created)
    var info = stat()
    #expect(stat(path, &info) == 0)
    #expect(info.st_mode & 0o777 == 0o600)
    try writer.close()
  }

  @Test(arguments: EventLogFsyncPolicy.allCases)
  func appendsAndReadsBackUnderEveryFsyncPolicy(_ policy: EventLogFsyncPolicy) throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("\(policy).jsonl")
    let writer = try EventLogWriter(
      path: path,
      options: .init(fsync: policy, groupCommit: .init(maxDelay: .milliseconds(1), maxRecords: 7)))
    for seq in 1...100 { #expect(try writer.append(eventObject(seq: seq)) == seq) }
    try writer.sync()
    #expect(try readAll(path).records.count == 100)
    for seq in 101...150 { try writer.append(eventObject(seq: seq)) }
    try writer.close()
    let (records, reader) = try readAll(path)
    #expect(records.map(\.seq) == Array(1...150))
    #expect(reader.tornTail == nil)
  }

  @Test func continuesTheSeqAfterReopening() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("reopen.jsonl")
    try writeLog(at: path, count: 5)
    let writer = try EventLogWriter(path: path)
    #expect(!writer.recovery.created)
    #expect(writer.recovery.lastSeq == 5)
    #expect(writer.recovery.recordCount == 5)
    #expect(writer.nextSeq == 6)
    try writer.append(eventObject(seq: 6))
    #expect(writer.nextSeq == 7)
    try writer.close()
    #expect(try readAll(path).records.map(\.seq) == Array(1...6))
  }

  @Test func startsAnEmptyLogAtTheGivenFirstSeq() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("later.jsonl")
    let writer = try EventLogWriter(path: path, options: .init(firstSeq: 501))
    #expect(writer.nextSeq == 501)
    try writer.append(eventObject(seq: 501))
    try writer.close()
    let reopened = try EventLogWriter(path: path, options: .init(firstSeq: nil))
    #expect(reopened.nextSeq == 502)
    try reopened.close()
    let error = eventLogError { _ = try EventLogWriter(path: path) }
    #expect(error?.code == .seqOutOfOrder)
  }

  @Test func rejectsARecordWithTheWrongSeqAndWritesNothing() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("seq.jsonl")
    let writer = try EventLogWriter(path: path)
    try writer.append(eventObject(seq: 1))
    for seq in [1, 3, 100] {
      let error = eventLogError { try writer.append(eventObject(seq: seq)) }
      #expect(error?.code == .invalidRecord)
      #expect(error?.message.contains("next seq is 2") == true)
    }
    try writer.append(eventObject(seq: 2))
    try writer.close()
    #expect(try readAll(path).records.map(\.seq) == [1, 2])
  }

  @Test func rejectsObjectsThatWouldBreakTheFraming() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("framing.jsonl")
    let writer = try EventLogWriter(path: path, options: .init(maximumLineLength: 200))
    let bad = [
      #"{"seq":1,"type":"versionOne"}"#,
      #"{"v":2,"seq":1,"text":"raw"# + "\n" + #"newline"}"#,
      #"{"v":2,"seq":1,"text":"raw"# + "\u{0}" + #"nul"}"#,
      #"{"v":2,"seq":1,"type":"unclosed""#,
      #"{"v":2,"seq":x,"type":"noNumber"}"#,
      #"{"v":2,"seq":1"#,
      #"{"v":2,"seq":1,"long":"\#(String(repeating: "a", count: 200))"}"#,
      "",
    ]
    for object in bad {
      let error = eventLogError { try writer.append(Array(object.utf8)) }
      #expect(error?.code == .invalidRecord, "\(object)")
    }
    try writer.append(Array(#"{"v":2,"seq":1}"#.utf8))
    try writer.close()
    let (records, _) = try readAll(path)
    #expect(records.map(\.object) == [Array(#"{"v":2,"seq":1}"#.utf8)])
  }

  @Test func refusesASecondWriterInTheSameProcess() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("locked.jsonl")
    let first = try EventLogWriter(path: path)
    let error = eventLogError { _ = try EventLogWriter(path: path) }
    #expect(error?.code == .inUse)
    #expect(error?.path == path)
    #expect(error?.description.contains(path) == true)
    try first.append(eventObject(seq: 1))
    try first.close()
    let second = try EventLogWriter(path: path)
    #expect(second.nextSeq == 2)
    try second.close()
  }

  @Test func refusesToAppendAfterClose() throws {
    let directory = try TemporaryDirectory()
    let writer = try EventLogWriter(path: directory.file("closed.jsonl"))
    try writer.close()
    try writer.close()
    #expect(eventLogError { try writer.append(eventObject(seq: 1)) }?.code == .closed)
  }

  @Test func keepsConcurrentAppendsWholeAndInOrder() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("threads.jsonl")
    let writer = try EventLogWriter(path: path)
    // Tasks race for the next seq; a loser is told the seq is taken and tries the next one.
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          for _ in 0..<100 {
            while (try? writer.append(eventObject(seq: writer.nextSeq))) == nil {}
          }
        }
      }
    }
    try writer.close()
    let (records, _) = try readAll(path)
    #expect(records.map(\.seq) == Array(1...400))
  }

  @Test func refusesAPathThatIsNotARegularFile() throws {
    let directory = try TemporaryDirectory()
    let error = eventLogError { _ = try EventLogWriter(path: directory.path) }
    #expect(error?.code == .fileError)
  }

  @Test func aLinesObjectIsTheRecordWithoutItsChecksum() {
    let object = eventObject(seq: 7)
    let line = EventLogWriter.line(for: object)
    #expect(line != object)
    #expect(EventLogWriter.object(inLine: line) == object)
    // A version 1 line is its object; so is anything without the checksum's shape.
    let versionOne = Array(#"{"seq":1,"type":"logout","payload":{}}"#.utf8)
    #expect(EventLogWriter.object(inLine: versionOne) == versionOne)
    let cut = Array(line.dropLast(3))
    #expect(EventLogWriter.object(inLine: cut) == cut)
  }

  @Test func aLineIsCheckedAsTheReaderChecksItsLines() throws {
    let line = EventLogWriter.line(for: eventObject(seq: 12))
    #expect(try EventLogWriter.seq(ofLine: line) == 12)
    var changed = line
    changed[20] ^= 0x01
    #expect(throws: LogLineProblem.self) { try EventLogWriter.seq(ofLine: changed) }
    #expect(throws: LogLineProblem.self) { try EventLogWriter.seq(ofLine: Array(line.dropLast())) }
    #expect(throws: LogLineProblem.self) { try EventLogWriter.seq(ofLine: []) }
    let versionOne = Array(#"{"seq":3,"type":"logout","payload":{}}"#.utf8)
    #expect(try EventLogWriter.seq(ofLine: versionOne) == 3)
  }
}
