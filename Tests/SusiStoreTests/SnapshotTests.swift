import Foundation
import SusiCore
import SusiEventLog
import SusiHTTPTesting
import SusiJSON
import SusiSamples
import SusiStore
import Synchronization
import Testing

/// A start from a snapshot and a full replay give the same state, byte for byte, and a snapshot
/// that does not fit the log is never used.
@Suite struct SnapshotTests {
  static let events = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Events")

  /// A fresh folder holding a copy of `bytes` as `events.jsonl`.
  private func folder(with bytes: [UInt8]) throws -> (folder: String, log: String) {
    let folder = TestScratch.root.appendingPathComponent(
      "susi-snapshot-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let log = folder + "/events.jsonl"
    try Data(bytes).write(to: URL(fileURLWithPath: log))
    return (folder, log)
  }

  /// A log of `count` realistic events (every kind a session writes).
  private func realisticLog(count: Int) throws -> [UInt8] {
    let directory = try folder(with: [])
    defer { try? FileManager.default.removeItem(atPath: directory.folder) }
    let writer = try EventLogWriter(
      path: directory.folder + "/w.jsonl", options: .init(fsync: .never))
    for seq in 1...count { try writer.append(RealisticEvents.event(seq: seq).encoded()) }
    try writer.close()
    return Array(try Data(contentsOf: URL(fileURLWithPath: directory.folder + "/w.jsonl")))
  }

  /// The byte offset right after each line, by line number (1-based).
  private func lineEnds(_ bytes: [UInt8]) -> [Int] {
    bytes.indices.filter { bytes[$0] == 0x0A }.map { $0 + 1 }
  }

  /// Snapshots the replay up to `seq` into the log's folder, reads it back, replays the rest, and
  /// checks the result against `full` byte for byte.
  private func expectSnapshotAt(
    line: Int, of log: String, ends: [Int], full: Recovered,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    var upTo = Recovered()
    try LogReplay.run(path: log, into: &upTo, until: upTo.lastSeq + line)
    let checkpoint = try EventLogCheckpoint.ofRecord(
      endingAt: ends[line - 1], inLogAt: log, seq: upTo.lastSeq, line: line)
    let files = SnapshotFiles(logPath: log)
    try files.write(Snapshot(checkpoint: checkpoint, recovered: upTo))
    let loaded = try files.load(files.path(forSeq: upTo.lastSeq)).get()
    var resumed = loaded.recovered
    try LogReplay.run(path: log, into: &resumed, after: loaded.checkpoint)
    #expect(
      resumed.state.canonicalJSON() == full.state.canonicalJSON(), sourceLocation: sourceLocation)
    #expect(resumed.state == full.state, sourceLocation: sourceLocation)
    #expect(
      Snapshot.body(of: resumed) == Snapshot.body(of: full), sourceLocation: sourceLocation)
  }

  @Test(arguments: ["session.jsonl", "format-v1.jsonl"])
  func resumingFromASnapshotAtEveryLineOfAnExampleLogGivesTheFullReplay(name: String) throws {
    let bytes = Array(try Data(contentsOf: Self.events.appendingPathComponent(name)))
    let (dir, log) = try folder(with: bytes)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var full = Recovered()
    try LogReplay.run(path: log, into: &full)
    let ends = lineEnds(bytes)
    for line in 1...ends.count {
      try expectSnapshotAt(line: line, of: log, ends: ends, full: full)
    }
  }

  @Test func resumingARealisticLogWithATornTailGivesTheFullReplay() throws {
    var bytes = try realisticLog(count: 1200)
    let ends = lineEnds(bytes)
    bytes.removeLast(9)  // the last record loses its end: a torn tail
    let (dir, log) = try folder(with: bytes)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var full = Recovered()
    let torn = try LogReplay.run(path: log, into: &full)
    #expect(torn != nil)
    #expect(full.lastSeq == 1199)
    for line in [1, 2, 50, 333, 600, 1001, 1198, 1199] {
      try expectSnapshotAt(line: line, of: log, ends: ends, full: full)
    }
  }

  @Test func aSnapshotOfAnotherCutOrDamagedLogIsIgnored() throws {
    let bytes = try realisticLog(count: 300)
    let ends = lineEnds(bytes)
    let (dir, log) = try folder(with: bytes)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var upTo = Recovered()
    try LogReplay.run(path: log, into: &upTo, until: 200)
    let checkpoint = try EventLogCheckpoint.ofRecord(
      endingAt: ends[199], inLogAt: log, seq: 200, line: 200)
    let files = SnapshotFiles(logPath: log)
    let snapshot = Snapshot(checkpoint: checkpoint, recovered: upTo)
    try files.write(snapshot)
    #expect(files.newestValid().snapshot?.checkpoint == checkpoint)
    let snapshotPath = files.path(forSeq: 200)
    let good = Array(try Data(contentsOf: URL(fileURLWithPath: snapshotPath)))

    // The log was cut before the snapshot's record.
    try Data(bytes[..<ends[150]]).write(to: URL(fileURLWithPath: log))
    expectIgnored(files, because: "shorter")
    // The log was replaced by a different one of the same length.
    var other = bytes
    other[ends[198] + 30] ^= 0x01
    try Data(other).write(to: URL(fileURLWithPath: log))
    expectIgnored(files, because: "not the one the snapshot covers")
    try Data(bytes).write(to: URL(fileURLWithPath: log))
    // A flipped byte in the snapshot, a snapshot cut short, another format version.
    var flipped = good
    flipped[flipped.count - 40] ^= 0x01
    try Data(flipped).write(to: URL(fileURLWithPath: snapshotPath))
    expectIgnored(files, because: "checksum")
    try Data(good.dropLast(100)).write(to: URL(fileURLWithPath: snapshotPath))
    expectIgnored(files, because: "cut short")
    let newer = String(decoding: good, as: UTF8.self).replacingOccurrences(
      of: #"{"snapshot":2,"#, with: #"{"snapshot":3,"#)
    try newer.write(toFile: snapshotPath, atomically: false, encoding: .utf8)
    expectIgnored(files, because: "format version 3")
    let olderReducer = String(decoding: good, as: UTF8.self).replacingOccurrences(
      of: #""reducer":\#(State.reducerVersion),"#, with: #""reducer":1,"#)
    try olderReducer.write(toFile: snapshotPath, atomically: false, encoding: .utf8)
    expectIgnored(files, because: "another version of susi")
    try Data(good).write(to: URL(fileURLWithPath: snapshotPath))
    #expect(files.newestValid().snapshot != nil)
  }

  private func expectIgnored(
    _ files: SnapshotFiles, because reason: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let found = files.newestValid()
    #expect(found.snapshot == nil, sourceLocation: sourceLocation)
    #expect(found.warnings.count == 1, sourceLocation: sourceLocation)
    #expect(
      found.warnings.first?.contains(reason) == true, "\(found.warnings)",
      sourceLocation: sourceLocation)
  }

  @Test func aStartResumesFromTheNewestMatchingSnapshotAndFallsBackWithOneWarning() throws {
    let bytes = try realisticLog(count: 500)
    let ends = lineEnds(bytes)
    let (dir, log) = try folder(with: bytes)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var full = Recovered()
    try LogReplay.run(path: log, into: &full)
    let files = SnapshotFiles(logPath: log)
    for seq in [100, 400] {
      var upTo = Recovered()
      try LogReplay.run(path: log, into: &upTo, until: seq)
      try files.write(
        Snapshot(
          checkpoint: try EventLogCheckpoint.ofRecord(
            endingAt: ends[seq - 1], inLogAt: log, seq: seq, line: seq),
          recovered: upTo))
    }
    func open() throws -> LogRecovery.Opened {
      do {
        return try LogRecovery.open(path: log, fsync: .never, environment: [:])
      } catch {
        throw JSONShapeError(path: "", reason: "\(error)")
      }
    }
    var opened = try open()
    #expect(opened.snapshotSeq == 400)
    #expect(opened.warnings.isEmpty)
    #expect(opened.writer.recovery.resumedAfter?.seq == 400)
    #expect(opened.writer.nextSeq == 501)
    #expect(Snapshot.body(of: opened.recovered) == Snapshot.body(of: full))
    try opened.writer.close()

    // The newest is damaged: one warning, and the older one is used.
    try Data("garbage".utf8).write(to: URL(fileURLWithPath: files.path(forSeq: 400)))
    opened = try open()
    #expect(opened.snapshotSeq == 100)
    #expect(opened.warnings.count == 1)
    #expect(Snapshot.body(of: opened.recovered) == Snapshot.body(of: full))
    try opened.writer.close()

    // Snapshots turned off: the whole log, no warning.
    opened = try LogRecovery.open(
      path: log, fsync: .never, environment: [LogRecovery.intervalVariable: "0"])
    #expect(opened.snapshotSeq == nil)
    #expect(opened.writer.recovery.resumedAfter == nil)
    #expect(Snapshot.body(of: opened.recovered) == Snapshot.body(of: full))
    try opened.writer.close()
  }

  @Test func oldLogsWithoutSnapshotsStillStart() throws {
    for name in ["format-v1.jsonl", "session.jsonl"] {
      let bytes = Array(try Data(contentsOf: Self.events.appendingPathComponent(name)))
      let (dir, log) = try folder(with: bytes)
      defer { try? FileManager.default.removeItem(atPath: dir) }
      var full = Recovered()
      try LogReplay.run(path: log, into: &full)
      let opened = try LogRecovery.open(path: log, fsync: .never, environment: [:])
      #expect(opened.snapshotSeq == nil)
      #expect(opened.warnings.isEmpty)
      #expect(opened.recovered.state.canonicalJSON() == full.state.canonicalJSON())
      try opened.writer.close()
    }
  }

  @Test func aCleanStopWritesASnapshotOnlyWhenAsManyEventsAsTheIntervalAreNotCovered() {
    let destination = SeqsWritten()
    let keeper = SnapshotKeeper(destination: destination, every: 10, newestSeq: 0)
    // A short tail is left for the next start to replay; the interval's worth is not.
    keeper.finish(Recovered(lastSeq: 9))
    #expect(destination.seqs.withLock { $0 } == [])
    keeper.finish(Recovered(lastSeq: 10))
    #expect(destination.seqs.withLock { $0 } == [10])
    // Counted from the newest snapshot, written or loaded.
    keeper.finish(Recovered(lastSeq: 19))
    let resumed = SnapshotKeeper(destination: destination, every: 10, newestSeq: 25)
    resumed.finish(Recovered(lastSeq: 34))
    #expect(destination.seqs.withLock { $0 } == [10])
    resumed.finish(Recovered(lastSeq: 35))
    #expect(destination.seqs.withLock { $0 } == [10, 35])
    // Snapshots turned off: none, however long the tail.
    SnapshotKeeper(destination: destination, every: 0, newestSeq: 0).finish(
      Recovered(lastSeq: 1000))
    #expect(destination.seqs.withLock { $0 } == [10, 35])
  }
}

/// The seqs a keeper wrote snapshots at.
private final class SeqsWritten: SnapshotDestination {
  let seqs = Mutex<[Int]>([])
  var logEnd: Int { 0 }
  func write(_ book: Recovered, line: [UInt8]?, end: Int) throws {
    seqs.withLock { $0.append(book.lastSeq) }
  }
}
