import Foundation
import SusiCore
import SusiEventLog
import SusiHTTPTesting
import SusiSamples
import SusiStore
import Testing

/// The state after any seq, rebuilt from recent states, snapshots or the log, is what replaying
/// the log up to that seq gives.
@Suite struct PastStatesTests {
  /// A log of `count` realistic events in a fresh folder, and a feed over it that keeps only a
  /// few events in memory, so most reads go back to the file.
  private func log(count: Int) throws -> (path: String, feed: EventFeed) {
    let folder = TestScratch.root.appendingPathComponent(
      "susi-past-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = folder + "/events.jsonl"
    let writer = try EventLogWriter(path: path, options: .init(fsync: .never))
    for seq in 1...count { try writer.append(RealisticEvents.event(seq: seq).encoded()) }
    try writer.close()
    return (path, EventFeed(history: LogHistory(path: path), lastSeq: count, capacity: 4))
  }

  private func replayed(_ path: String, until seq: Int) throws -> Recovered {
    var recovered = Recovered()
    if seq > 0 { try LogReplay.run(path: path, into: &recovered, until: seq) }
    return recovered
  }

  @Test func everySeqForwardsAndBackwardsMatchesAReplay() throws {
    let (path, feed) = try log(count: 60)
    let states = PastStates(logPath: path, feed: feed)
    for seq in Array(0...60) + Array((0...60).reversed()) {
      let state = try states.state(after: seq)
      #expect(state.lastSeq == seq)
      #expect(state.state == (try replayed(path, until: seq)).state, "seq \(seq)")
    }
  }

  @Test func aSnapshotIsAStartingPointThatGivesTheSameState() throws {
    let (path, feed) = try log(count: 40)
    var upTo = try replayed(path, until: 25)
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    let end = bytes.indices.filter { bytes[$0] == 0x0A }[24] + 1
    let checkpoint = try EventLogCheckpoint.ofRecord(
      endingAt: end, inLogAt: path, seq: 25, line: 25)
    try SnapshotFiles(logPath: path).write(Snapshot(checkpoint: checkpoint, recovered: upTo))
    upTo = try replayed(path, until: 33)
    #expect(try PastStates(logPath: path, feed: feed).state(after: 33).state == upTo.state)
  }

  @Test func aSeqPastTheEndOfTheLogIsRefused() throws {
    let (path, _) = try log(count: 5)
    // A feed that believes in more events than the file holds.
    let feed = EventFeed(history: LogHistory(path: path), lastSeq: 9, capacity: 4)
    #expect(throws: PastStates.Failure.self) {
      try PastStates(logPath: path, feed: feed).state(after: 9)
    }
  }
}
