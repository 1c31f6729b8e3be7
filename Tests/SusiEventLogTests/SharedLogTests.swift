import Foundation
import Glibc
import SusiEventLog
import Testing

/// A log shared by several writers (`Options.shared`): each append under a short lock, after the
/// records the others appended.
@Suite struct SharedLogTests {
  private func sharedWriter(_ path: String) throws -> EventLogWriter {
    try EventLogWriter(path: path, options: .init(fsync: .never, firstSeq: nil, shared: true))
  }

  /// Appends one record under the lock; returns the lines the others appended before it.
  @discardableResult
  private func appendShared(_ writer: EventLogWriter) throws -> [[UInt8]] {
    try writer.withAppendLock { others in
      try writer.append(eventObject(seq: writer.nextSeq))
      return others
    }
  }

  @Test func twoWritersOnOneLogInterleaveWithContiguousSeqs() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("shared.jsonl")
    let first = try sharedWriter(path)
    let second = try sharedWriter(path)
    #expect(first.presence?.wasAlone == true)
    #expect(second.presence?.wasAlone == false)
    try appendShared(first)
    try appendShared(first)
    let seen = try appendShared(second)
    #expect(seen.count == 2, "the second writer read what the first appended before its own")
    #expect(try first.appendedByOthers().count == 1)
    try appendShared(first)
    try appendShared(second)
    try first.close()
    try second.close()
    let records = try readAll(path).records
    #expect(records.map(\.seq) == [1, 2, 3, 4, 5])
  }

  @Test func onlyAnotherWritersAppendsCountAsAppendsByOthers() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("shared.jsonl")
    let first = try sharedWriter(path)
    let second = try sharedWriter(path)
    #expect(!first.mayHaveAppendsByOthers)
    try appendShared(first)
    try appendShared(first)
    #expect(!first.mayHaveAppendsByOthers, "its own appends are not another's")
    try appendShared(second)
    #expect(first.mayHaveAppendsByOthers)
    #expect(try first.appendedByOthers().count == 1)
    #expect(!first.mayHaveAppendsByOthers, "what it read back is known")
    try first.close()
    #expect(!first.mayHaveAppendsByOthers, "a closed writer looks at nothing")
    try second.close()
  }

  @Test func anAppendOutsideTheLockIsRefused() throws {
    let directory = try TemporaryDirectory()
    let writer = try sharedWriter(directory.file("shared.jsonl"))
    let error = eventLogError { try writer.append(eventObject(seq: 1)) }
    #expect(error?.code == .invalidRecord)
    try writer.close()
  }

  @Test func followingNeedsNoLockAndSkipsARecordStillBeingWritten() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("shared.jsonl")
    let writer = try sharedWriter(path)
    let follower = try sharedWriter(path)
    try appendShared(writer)
    // Half a line: what a reader sees while another process is in the middle of a write.
    let line = EventLogWriter.line(for: eventObject(seq: 2))
    let fd = open(path, O_WRONLY | O_APPEND)
    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count / 2) }
    close(fd)
    #expect(try follower.appendedByOthers().count == 1)
    #expect(try follower.appendedByOthers().isEmpty)
    #expect(follower.nextSeq == 2)
    // Under the lock nobody is writing, so the half line is a crashed writer's: it is cut off.
    try appendShared(follower)
    try writer.close()
    try follower.close()
    let (records, reader) = try readAll(path)
    #expect(records.map(\.seq) == [1, 2])
    #expect(reader.tornTail == nil)
  }
}

/// Shared logs across processes: `susi-log-child --shared`.
@Suite
struct SharedLogChildProcessTests {
  @Test func aWriterInAnotherProcessAppendsBesideThisOne() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("shared.jsonl")
    let writer = try EventLogWriter(
      path: path, options: .init(fsync: .never, firstSeq: nil, shared: true))
    let child = try AppendChild(["--log", path, "--fsync", "never", "--count", "300", "--shared"])
    var ours = 0
    while ours < 300 {
      ours += 1
      try writer.withAppendLock { _ in try writer.append(eventObject(seq: writer.nextSeq)) }
    }
    #expect(child.finish() == 0)
    try writer.close()
    let records = try readAll(path).records
    #expect(records.map(\.seq) == Array(1...600))
  }

  @Test func aWriterKilledMidAppendLeavesATailTheOtherCutsOff() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("shared.jsonl")
    let writer = try EventLogWriter(
      path: path, options: .init(fsync: .never, firstSeq: nil, shared: true))
    let child = try AppendChild(
      ["--log", path, "--fsync", "always", "--count", "3", "--shared", "--tear"])
    while let line = child.readLine(), line != "torn" {}
    // The child holds the append lock with half a record written; following still works.
    #expect(try writer.appendedByOthers().count == 3)
    #expect(try readAll(path).reader.tornTail != nil)
    child.kill()
    try writer.withAppendLock { others in
      #expect(others.isEmpty)
      try writer.append(eventObject(seq: writer.nextSeq))
    }
    try writer.close()
    let (records, reader) = try readAll(path)
    #expect(records.map(\.seq) == [1, 2, 3, 4])
    #expect(reader.tornTail == nil)
  }
}
