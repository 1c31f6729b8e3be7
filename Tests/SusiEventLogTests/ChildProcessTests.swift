import Foundation
import SusiCrypto
import SusiEventLog
import SusiSamples
import SusiStore
import SusiTesting
import Testing

/// Tests that need a second process: the `susi-log-child` test executable,
/// found next to the test binary.
@Suite
struct ChildProcessTests {
  @Test func losesNothingAcknowledgedWhenKilledAtRandomMoments() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("crash.jsonl")
    var random = SeededRandom(seed: 20_261_121)
    var lastReported = 0
    for round in 1...24 {
      let target = lastReported + 1 + Int(random.next() % 40)
      lastReported = try appendUntilKilled(
        ["--log", path, "--fsync", "always"], after: lastReported, target: target, round: round)
      // Every acknowledged record is there; at most one more (appended, not yet reported).

      let (records, reader) = try readAll(path)
      #expect(records.map(\.seq) == Array(1...records.count), "round \(round)")
      #expect(
        (lastReported...(lastReported + 1)).contains(reader.lastSeq ?? 0),
        "round \(round): the log ends at \(reader.lastSeq ?? 0), reported \(lastReported)")
      lastReported = max(lastReported, reader.lastSeq ?? 0)

      // The state replayed from what survived equals the state of the events the child wrote.
      var recovered = Recovered()
      try LogReplay.run(path: path, into: &recovered)
      #expect(recovered.lastSeq == lastReported, "round \(round)")
      #expect(recovered.state == RealisticEvents.state(through: lastReported), "round \(round)")
    }
    let writer = try EventLogWriter(path: path)
    #expect(writer.nextSeq == lastReported + 1)
    try writer.append(eventObject(seq: lastReported + 1))
    try writer.close()
    #expect(try readAll(path).records.count == lastReported + 1)
  }

  @Test(arguments: [EventLogFsyncPolicy.always, .batch])
  func losesNoBatchAcknowledgedWhenKilledAtRandomMoments(_ policy: EventLogFsyncPolicy) throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("batches.jsonl")
    var random = SeededRandom(seed: 20_261_126)
    var lastReported = 0
    for round in 1...16 {
      let batch = 2 + Int(random.next() % 30)
      let target = lastReported + batch * (1 + Int(random.next() % 8))
      lastReported = try appendUntilKilled(
        ["--log", path, "--fsync", policy.rawValue, "--batch", "\(batch)"],
        after: lastReported, target: target, round: round)
      // Every acknowledged batch is there whole; of the one being written when the child died,
      // what was written in full stays and a torn end is cut off on the next open.
      let writer = try EventLogWriter(path: path)
      let lastSeq = writer.nextSeq - 1
      try writer.close()
      #expect(
        (lastReported...(lastReported + batch)).contains(lastSeq),
        "round \(round): the log ends at \(lastSeq), reported \(lastReported)")
      let (records, reader) = try readAll(path)
      #expect(records.map(\.seq) == Array(1...lastSeq), "round \(round)")
      #expect(reader.tornTail == nil)
      lastReported = lastSeq
      var recovered = Recovered()
      try LogReplay.run(path: path, into: &recovered)
      #expect(recovered.state == RealisticEvents.state(through: lastSeq), "round \(round)")
    }
  }

  /// Starts a child appending with `arguments`, checks that it opens the log after
  /// `lastReported`, kills it once it has reported `target`, and returns the last seq it
  /// reported (lines it wrote before it died are still in the pipe).
  private func appendUntilKilled(
    _ arguments: [String], after lastReported: Int, target: Int, round: Int
  ) throws -> Int {
    let child = try AppendChild(arguments)
    let opened = try #require(child.readLine()).split(separator: " ")
    #expect(opened.first == "opened")
    #expect(Int(opened[1]) == lastReported + 1, "round \(round)")
    while let line = child.readLine(), line != "appended \(target)" {
      #expect(line.hasPrefix("appended "), "round \(round): \(line)")
    }
    child.kill()
    var reported = lastReported
    while let line = child.readLine() {
      if let seq = Int(line.dropFirst("appended ".count)) { reported = seq }
    }
    return max(reported, target)
  }

  @Test func refusesASecondWriterFromAnotherProcess() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("shared.jsonl")
    let child = try AppendChild(["--log", path, "--fsync", "batch", "--count", "3", "--hold"])
    #expect(child.readLine()?.hasPrefix("opened") == true)
    while let line = child.readLine(), line != "done" {}

    let error = eventLogError { _ = try EventLogWriter(path: path) }
    #expect(error?.code == .inUse)
    #expect(error?.message.contains("in use by another susi process (pid \(child.pid))") == true)
    #expect(try readAll(path).records.count == 3, "readers need no lock")

    #expect(child.finish() == 0)
    let writer = try EventLogWriter(path: path)
    #expect(writer.nextSeq == 4)
    try writer.close()
  }

  @Test func leavesTheFileAtTheLastGoodRecordWhenAWriteFails() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("full.jsonl")
    let limit = 20_000
    let child = try AppendChild(
      ["--log", path, "--fsync", "never", "--file-size-limit", String(limit)])
    var lastAppended = 0
    var failure = ""
    var retry = ""
    while let line = child.readLine() {
      if line.hasPrefix("appended ") { lastAppended = Int(line.dropFirst(9)) ?? -1 }
      if line.hasPrefix("failed ") { failure = line }
      if line.hasPrefix("retry-") { retry = line }
    }
    #expect(child.finish() == 3)
    #expect(failure.hasPrefix("failed writeFailed \(lastAppended + 1) "))
    #expect(failure.contains("cut back"))
    #expect(retry == "retry-failed")

    let (records, reader) = try readAll(path)
    #expect(lastAppended > 10)
    #expect(records.map(\.seq) == Array(1...lastAppended))
    #expect(reader.tornTail == nil)
    let length = try fileBytes(path).count
    #expect(length == reader.validLength)
    #expect(length <= limit)
  }
}

/// A running `susi-log-child`, read line by line from its stdout.
final class AppendChild {
  private let process: SusiProcess

  var pid: Int32 { process.pid }

  /// Starts `susi-log-child ARGUMENTS`; throws when it is not built.
  init(_ arguments: [String]) throws {
    process = try SusiBinary.built("susi-log-child").start(arguments)
  }

  /// The next line the child wrote, or nil once its stdout is closed (it exited). A line that
  /// does not come within two minutes is a test failure.
  func readLine() -> String? {
    do {
      return try process.nextLine(timeout: 120)
    } catch {
      Issue.record("\(error)")
      return nil
    }
  }

  /// Ends the child with SIGKILL and waits for it.
  func kill() {
    process.stop(signal: SIGKILL)
  }

  /// Closes the child's stdin (ending `--hold`) and returns its exit status.
  func finish() -> Int32 {
    process.closeInput()
    return process.waitForExit(timeout: 120).status
  }
}
