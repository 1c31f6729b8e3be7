import Foundation
import SusiCrypto
import SusiEventLog
import SusiSamples
import SusiStore
import SusiTesting
import Testing

/// Tests that need a second process: the `log-append-child` mode of the `susi-bench` executable,
/// found next to the test binary.
@Suite(
  .enabled(if: AppendChild.executable != nil, "susi-bench is not built; run `swift build` first"))
struct ChildProcessTests {
  @Test func losesNothingAcknowledgedWhenKilledAtRandomMoments() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("crash.jsonl")
    var random = SeededRandom(seed: 20_261_121)
    var lastReported = 0
    for round in 1...24 {
      let target = lastReported + 1 + Int(random.next() % 40)
      let child = try AppendChild(["--log", path, "--fsync", "always"])
      let opened = try #require(child.readLine()).split(separator: " ")
      #expect(opened.first == "opened")
      let nextSeq = try #require(Int(opened[1]))
      #expect(nextSeq == lastReported + 1, "round \(round)")
      while let line = child.readLine(), line != "appended \(target)" {
        #expect(line.hasPrefix("appended "), "round \(round): \(line)")
      }
      child.kill()
      // Lines the child wrote before it died are still in the pipe.
      while let line = child.readLine() {
        if let seq = Int(line.dropFirst("appended ".count)) { lastReported = seq }
      }
      lastReported = max(lastReported, target)
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

/// A running `susi-bench log-append-child`, read line by line from its stdout.
final class AppendChild {
  /// `susi-bench` next to the running test binary, if it was built.
  static let executable: String? = {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let candidate = testBinary.deletingLastPathComponent().appendingPathComponent("susi-bench")
    return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate.path : nil
  }()

  private let process = Process()
  private let output = Pipe()
  private let input = Pipe()
  private var pending: [UInt8] = []

  var pid: Int32 { process.processIdentifier }

  init(_ arguments: [String]) throws {
    process.executableURL = URL(fileURLWithPath: Self.executable ?? "/nonexistent")
    process.arguments = ["log-append-child"] + arguments
    process.standardOutput = output
    process.standardInput = input
    try ProcessLaunch.run(process)
    try output.fileHandleForWriting.close()
    try input.fileHandleForReading.close()
  }

  deinit {
    if process.isRunning { kill() }
  }

  /// The next line the child wrote, or nil once its stdout is closed (it exited).
  func readLine() -> String? {
    let fd = output.fileHandleForReading.fileDescriptor
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      if let newline = pending.firstIndex(of: 0x0A) {
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeSubrange(...newline)
        return line
      }
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return nil }
      pending.append(contentsOf: chunk[..<count])
    }
  }

  func kill() {
    Foundation.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Closes the child's stdin (ending `--hold`) and returns its exit status.
  func finish() -> Int32 {
    try? input.fileHandleForWriting.close()
    while readLine() != nil {}
    process.waitUntilExit()
    return process.terminationStatus
  }
}
