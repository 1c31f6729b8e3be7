import Foundation
import SusiCore
import SusiEventLog
import SusiHTTPTesting
import SusiStore
import SusiTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Snapshots through the built binary: a clean stop leaves one when the interval's worth of
/// events is not covered, the next start resumes from it,
/// and `kill -9` in the middle of writing one leaves the old snapshot and a correct next start.
@Suite
struct SnapshotBinaryTests {
  let susi: SusiBinary

  /// Fails every test of the suite, never skips it, when the binary is missing.
  init() throws {
    susi = try SusiBinary.built()
  }

  private func folder() throws -> String {
    let path = TestScratch.root.appendingPathComponent(
      "susi-snapshots-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  private func snapshots(_ dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
      .filter { $0.hasPrefix("events.jsonl.snapshot.") }.sorted()
  }

  private func jsonl(_ dir: String) -> [String] {
    ["jsonl", "--state-dir", dir + "/state", "--log", dir + "/events.jsonl", "--fsync", "never"]
  }

  private func environment(_ dir: String, _ extra: [String: String] = [:]) -> [String: String] {
    SusiBinary.isolatedEnvironment(dir, ["SUSI_SNAPSHOT_EVERY": "4"].merging(extra) { $1 })
  }

  private let lines = String(repeating: #"{"type":"loadGroups"}"# + "\n", count: 5)

  /// `replay --digest`, with and without starting from a snapshot, must agree; `--verify` passes.
  private func expectConsistent(_ dir: String, sourceLocation: SourceLocation = #_sourceLocation)
    async throws
  {
    let log = dir + "/events.jsonl"
    let env = SusiBinary.isolatedEnvironment(dir)
    let full = try await susi.run(["replay", log, "--digest"], environment: env)
    let resumed = try await susi.run(
      ["replay", log, "--digest", "--from-snapshot"], environment: env)
    #expect(full.status == 0 && resumed.status == 0, sourceLocation: sourceLocation)
    #expect(!full.stdout.isEmpty && full.stdout == resumed.stdout, sourceLocation: sourceLocation)
    #expect(resumed.stderr.contains("started from the snapshot"), sourceLocation: sourceLocation)
    let verify = try await susi.run(["replay", log, "--verify"], environment: env)
    #expect(verify.status == 0, "\(verify.stderr)", sourceLocation: sourceLocation)
    #expect(verify.stdout.contains("verified: the snapshot"), sourceLocation: sourceLocation)
  }

  @Test func aCleanStopLeavesASnapshotWhenTheIntervalsWorthIsNotCoveredAndTheNextStartResumes()
    async throws
  {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // Fewer events than the interval: the clean stop leaves them for the next start to replay.
    let rare = environment(dir, ["SUSI_SNAPSHOT_EVERY": "100"])
    let first = try await susi.run(jsonl(dir), input: lines, environment: rare)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(snapshots(dir).isEmpty)
    // As many as the interval (4) not covered: this clean stop writes one covering every event.
    let events = try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)
      .split(separator: "\n").count
    let covering = try await susi.run(jsonl(dir), input: "", environment: environment(dir))
    #expect(covering.status == 0, "\(covering.stderr)")
    #expect(snapshots(dir) == ["events.jsonl.snapshot." + String(format: "%012d", events)])
    // The next start resumes from it; snapshots every 4 events and the clean stop leave fewer
    // than 4 uncovered.
    let second = try await susi.run(jsonl(dir), input: lines, environment: environment(dir))
    #expect(second.status == 0)
    #expect(!second.stderr.contains("snapshot"), "\(second.stderr)")
    let total = try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)
      .split(separator: "\n").count
    let newestSeq = snapshots(dir).last.flatMap { Int($0.split(separator: ".").last ?? "") } ?? 0
    #expect(
      snapshots(dir).count >= 2 && total - newestSeq < 4, "\(snapshots(dir)), \(total) events")
    try await expectConsistent(dir)

    // A damaged snapshot: one warning line, and the start rebuilds the state from the log.
    let newest = dir + "/" + snapshots(dir).last!
    var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: newest)))
    bytes[bytes.count - 20] ^= 0x01
    try Data(bytes).write(to: URL(fileURLWithPath: newest))
    let third = try await susi.run(jsonl(dir), input: "", environment: environment(dir))
    #expect(third.status == 0)
    let warnings = third.stderr.split(separator: "\n").filter { $0.contains("snapshot") }
    #expect(warnings.count == 1, "\(third.stderr)")
    try await expectConsistent(dir)
  }

  @Test func killedWhileWritingASnapshotLeavesTheOldOneAndAStartAfterATornTailIsCorrect()
    async throws
  {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let first = try await susi.run(jsonl(dir), input: lines, environment: environment(dir))
    #expect(first.status == 0, "\(first.stderr)")
    let before = snapshots(dir)
    #expect(!before.isEmpty)

    // The next snapshot stops after its temporary file is on disk, before the rename.
    let marker = dir + "/held"
    let running = try susi.start(
      jsonl(dir), environment: environment(dir, ["SUSI_TEST_SNAPSHOT_HOLD": marker]))
    running.send(lines)
    // Waited for on a thread of its own: a cooperative thread held for this would be missed by
    // the tests running beside it.
    let held = await onThread { () -> Bool in
      let deadline = Date().addingTimeInterval(60)
      while !FileManager.default.fileExists(atPath: marker) && Date() < deadline {
        usleep(20_000)
      }
      return FileManager.default.fileExists(atPath: marker)
    }
    #expect(held, "no snapshot was due")
    running.signal(SIGKILL)
    let killed = await onThread { running.waitForExit(timeout: 60) }
    #expect(killed.status == SIGKILL)
    // The old snapshots are intact, the new one exists only as its temporary file.
    #expect(snapshots(dir).filter { !$0.hasSuffix(".tmp") } == before)
    #expect(snapshots(dir).contains { $0.hasSuffix(".tmp") })

    // And the log ends in a torn record, as after a crash in the middle of a write.
    let log = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/events.jsonl"))
    try log.seekToEnd()
    try log.write(contentsOf: Data(#"{"v":2,"seq":999999,"at":"#.utf8))
    try log.close()

    let next = try await susi.run(jsonl(dir), input: "", environment: environment(dir))
    #expect(next.status == 0, "\(next.stderr)")
    #expect(next.stderr.contains("partly written record"), "\(next.stderr)")
    #expect(!next.stderr.contains("ignored the snapshot"), "\(next.stderr)")
    // The clean stop wrote a new snapshot and removed the leftover temporary file.
    #expect(!snapshots(dir).contains { $0.hasSuffix(".tmp") })
    try await expectConsistent(dir)
  }

  @Test func verifyFailsOnASnapshotThatDoesNotHoldWhatTheLogReplaysTo() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let session = ReplayCommandTests.events.appendingPathComponent("session.jsonl").path
    let log = dir + "/events.jsonl"
    try FileManager.default.copyItem(atPath: session, toPath: log)
    // A snapshot that fits the log (its record, its own checksums) but holds a wrong state.
    var recovered = Recovered()
    try LogReplay.run(path: log, into: &recovered, until: 40)
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: log)))
    let end = bytes.indices.filter { bytes[$0] == 0x0A }[39] + 1
    recovered.state.groups.append("Not in the log")
    let checkpoint = try EventLogCheckpoint.ofRecord(endingAt: end, inLogAt: log, seq: 40, line: 40)
    try SnapshotFiles(logPath: log).write(Snapshot(checkpoint: checkpoint, recovered: recovered))
    let verify = try await susi.run(
      ["replay", log, "--verify"], environment: SusiBinary.isolatedEnvironment(dir))
    #expect(verify.status == 65)
    #expect(verify.stderr.contains("the snapshot at seq 40 does not hold what the log replays to"))
    #expect(verify.stderr.contains("Not in the log"), "\(verify.stderr)")
  }
}
