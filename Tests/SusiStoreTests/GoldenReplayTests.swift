import Foundation
import SusiCore
import SusiEventLog
import SusiJSON
import SusiStore
import Testing

/// Every log in `Events/` replays to its recorded state, and every line survives decode → encode
/// byte for byte. Re-record the states (after an intended change) with
/// `SUSI_RECORD_GOLDEN=1 swift test --filter GoldenReplayTests`.
@Suite struct GoldenReplayTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Events")

  static let logs: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".jsonl") }.sorted()
  }()

  static let recording = ProcessInfo.processInfo.environment["SUSI_RECORD_GOLDEN"] == "1"

  @Test func thereAreExampleLogs() {
    #expect(Self.logs.contains("session.jsonl"))
    #expect(Self.logs.contains("format-v1.jsonl"))
  }

  @Test(arguments: logs)
  func replaysToTheRecordedState(log: String) throws {
    let path = Self.folder.appendingPathComponent(log).path
    var recovered = Recovered()
    let torn = try LogReplay.run(path: path, into: &recovered)
    #expect(torn == nil, "\(log) must end with a complete record")
    let text = recovered.state.json.prettyText() + "\n"
    let golden = Self.folder.appendingPathComponent(
      log.replacingOccurrences(of: ".jsonl", with: ".state.json"))
    if Self.recording {
      try text.write(to: golden, atomically: true, encoding: .utf8)
      return
    }
    let recorded = try String(contentsOf: golden, encoding: .utf8)
    #expect(
      text == recorded,
      "\(log) no longer replays to \(golden.lastPathComponent); if intended, re-record with SUSI_RECORD_GOLDEN=1"
    )
  }

  @Test(arguments: logs)
  func replayingTwiceGivesTheSameState(log: String) throws {
    let path = Self.folder.appendingPathComponent(log).path
    var first = Recovered()
    var second = Recovered()
    try LogReplay.run(path: path, into: &first)
    try LogReplay.run(path: path, into: &second)
    #expect(first.state == second.state)
    #expect(first.state.canonicalJSON() == second.state.canonicalJSON())
  }

  @Test(arguments: logs)
  func everyLineDecodesAndEncodesToTheSameBytes(log: String) throws {
    let path = Self.folder.appendingPathComponent(log).path
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false)
    let reader = try EventLogReader(path: path, firstSeq: nil)
    var checked = 0
    try reader.forEachRecord { record in
      let event = try Event.decode(record.object)
      let original = Array(lines[record.line - 1].utf8)
      #expect(try Event.read(logLine: original) == event, "\(log):\(record.line)")
      if record.version == Event.formatVersion {
        #expect(EventLogWriter.line(for: event.encoded()) == original, "\(log):\(record.line)")
      } else {
        // Older versions are upgraded on read: re-encoding gives today's format, and reading
        // that back gives the same event.
        #expect(try Event.decode(event.encoded()) == event, "\(log):\(record.line)")
      }
      checked += 1
    }
    #expect(checked == lines.filter { !$0.isEmpty }.count)
  }

  @Test func theSessionTouchesEveryActionType() throws {
    let path = Self.folder.appendingPathComponent("session.jsonl").path
    var seen = Set<ActionType>()
    var recovered = Recovered()
    try LogReplay.run(path: path, into: &recovered) { event, _, _ in
      seen.insert(event.action.type)
    }
    let missing = Set(ActionType.allCases).subtracting(seen)
    #expect(missing.isEmpty, "session.jsonl lacks \(missing.map(\.rawValue).sorted())")
  }
}
