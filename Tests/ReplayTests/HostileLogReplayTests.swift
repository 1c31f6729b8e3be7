import Foundation
import SusiHTTPTesting
import SusiTesting
import Testing

/// `susi replay` on logs holding values a server once sent: numbers and dates at the edges
/// are shown, never trapped on.
@Suite struct HostileLogReplayTests {
  let susi: SusiBinary

  init() throws { susi = try SusiBinary.built() }

  @Test func aHugeAverageAndDatesOutside0000To9999AreSummarised() async throws {
    let dir = TestScratch.root.appendingPathComponent(
      "susi-replay-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let log = dir + "/hostile.jsonl"
    let lines = [
      #"{"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"cli","type":"loadSkills","payload":{}}"#,
      #"{"seq":2,"at":"2026-11-21T10:00:00.001Z","origin":"runner","cause":1,"type":"skillsLoaded","payload":{"skills":[{"group":"G","tag":"T","rating":{"oneStar":0,"twoStar":0,"threeStar":0,"fourStar":0,"fiveStar":1,"average":1e308,"total":1}}]}}"#,
      #"{"seq":3,"at":"2026-11-21T10:00:00.002Z","origin":"cli","type":"loadHistory","payload":{}}"#,
      #"{"seq":4,"at":"2026-11-21T10:00:00.003Z","origin":"runner","cause":3,"type":"historyLoaded","payload":{"entries":[{"query":"a","answers":[],"queryDate":"-000001-12-31T00:01:00.000Z","answerDate":"+275760-09-13T00:00:00.000Z"}],"remaining":0}}"#,
    ]
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: log))
    let output = try await susi.run(
      ["replay", log], environment: SusiBinary.isolatedEnvironment(dir))
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("4 events"))
    let verified = try await susi.run(
      ["replay", log, "--verify"], environment: SusiBinary.isolatedEnvironment(dir))
    #expect(verified.status == 0, "\(verified.stderr)")
  }
}
