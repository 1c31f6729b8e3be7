import Foundation
import SusiEventLog
import Testing

/// `appendLines`: several records in one write, all or nothing.
@Suite struct BatchAppendTests {
  @Test(arguments: EventLogFsyncPolicy.allCases)
  func writesABatchAsTheSameBytesAsOneRecordAtATime(_ policy: EventLogFsyncPolicy) throws {
    let directory = try TemporaryDirectory()
    let single = directory.file("single.jsonl")
    let batched = directory.file("batched.jsonl")
    try writeLog(at: single, count: 10)
    let writer = try EventLogWriter(path: batched, options: .init(fsync: policy))
    let first = try writer.appendLines((1...3).map(eventObject))
    let second = try writer.appendLines((4...10).map(eventObject))
    try writer.close()
    #expect(try fileBytes(batched) == fileBytes(single))
    #expect(first + second == (1...10).map { EventLogWriter.line(for: eventObject(seq: $0)) })
    #expect(try readAll(batched).records.map(\.seq) == Array(1...10))
  }

  @Test func refusesABatchWhoseSeqsDoNotFollowOnAndWritesNoneOfIt() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("gap.jsonl")
    let writer = try EventLogWriter(path: path)
    try writer.append(eventObject(seq: 1))
    #expect(throws: EventLogError.self) {
      try writer.appendLines([eventObject(seq: 2), eventObject(seq: 4)])
    }
    #expect(writer.nextSeq == 2)
    #expect(try writer.appendLines([eventObject(seq: 2), eventObject(seq: 3)]).count == 2)
    try writer.close()
    #expect(try readAll(path).records.map(\.seq) == [1, 2, 3])
  }

  @Test func appendsABatchToASharedLogOnlyUnderTheAppendLock() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("shared.jsonl")
    let writer = try EventLogWriter(path: path, options: .init(shared: true))
    #expect(throws: EventLogError.self) { try writer.appendLines([eventObject(seq: 1)]) }
    try writer.withAppendLock { others in
      #expect(others.isEmpty)
      _ = try writer.appendLines([eventObject(seq: 1), eventObject(seq: 2)])
    }
    try writer.close()
    #expect(try readAll(path).records.map(\.seq) == [1, 2])
  }
}
