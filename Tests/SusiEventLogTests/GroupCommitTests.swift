import Dispatch
import Synchronization
import Testing

@testable import SusiEventLog

/// The `batch` policy's background flusher, observed through the writer's own queue: a block
/// queued after an append runs after any flush that append requested.
@Suite struct GroupCommitTests {
  @Test func flushesOnceEnoughRecordsAreWaiting() throws {
    let directory = try TemporaryDirectory()
    let writer = try EventLogWriter(
      path: directory.file("group.jsonl"),
      options: .init(fsync: .batch, groupCommit: .init(maxDelay: .seconds(3600), maxRecords: 4)))
    for seq in 1...3 { try writer.append(eventObject(seq: seq)) }
    #expect(unsyncedBytes(writer) > 0, "three records wait for the delay")
    try writer.append(eventObject(seq: 4))
    #expect(unsyncedBytes(writer) == 0, "the fourth record starts a flush")
    for seq in 5...6 { try writer.append(eventObject(seq: seq)) }
    #expect(unsyncedBytes(writer) > 0)
    try writer.sync()
    #expect(unsyncedBytes(writer) == 0)
    try writer.close()
  }

  @Test func neverFlushesInTheBackgroundUnderOtherPolicies() throws {
    let directory = try TemporaryDirectory()
    let never = try EventLogWriter(
      path: directory.file("never.jsonl"),
      options: .init(fsync: .never, groupCommit: .init(maxDelay: .zero, maxRecords: 1)))
    try never.append(eventObject(seq: 1))
    #expect(unsyncedBytes(never) > 0)
    try never.close()

    let always = try EventLogWriter(
      path: directory.file("always.jsonl"), options: .init(fsync: .always))
    try always.append(eventObject(seq: 1))
    #expect(always.state.withLock { $0.syncedLength == $0.writtenLength && $0.writtenLength > 0 })
    try always.close()
  }

  /// Bytes written but not yet known to be on disk, once queued flushes have run.
  private func unsyncedBytes(_ writer: EventLogWriter) -> Int {
    writer.flushQueue.sync {}
    return writer.state.withLock { $0.writtenLength - $0.syncedLength }
  }
}
