import Foundation
import SusiHTTPTesting
import SusiTesting
import Testing

/// `susi replay`, through the built binary, on the example logs in Events/.
@Suite
struct ReplayCommandTests {
  let susi: SusiBinary

  /// Fails every test of the suite, never skips it, when the binary is missing.
  init() throws {
    susi = try SusiBinary.built()
  }
  static let events = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Events")
  let session = ReplayCommandTests.events.appendingPathComponent("session.jsonl").path
  /// How many events the session log holds.
  var sessionEvents: Int {
    ((try? String(contentsOfFile: session, encoding: .utf8)) ?? "").split(separator: "\n").count
  }

  private func folder() throws -> String {
    let path = TestScratch.root.appendingPathComponent(
      "susi-replay-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  private func replay(_ arguments: [String], in dir: String) async throws -> SusiProcess.Output {
    try await susi.run(["replay"] + arguments, environment: SusiBinary.isolatedEnvironment(dir))
  }

  @Test func printsTheFinalStateForPeopleAndForPrograms() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let text = try await replay([session], in: dir)
    #expect(text.status == 0)
    #expect(text.stdout.contains("\(sessionEvents) events"))
    // The session ends logged out, and a logout forgets the user's settings.
    #expect(text.stdout.contains("Settings     none synced"))
    let json = try await replay([session, "--json"], in: dir)
    #expect(json.status == 0)
    let golden = try String(
      contentsOf: Self.events.appendingPathComponent("session.state.json"), encoding: .utf8)
    let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? NSDictionary
    let expected = try JSONSerialization.jsonObject(with: Data(golden.utf8)) as? NSDictionary
    #expect(parsed != nil && parsed == expected)
  }

  @Test func stopsAfterTheSeqAskedFor() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let early = try await replay([session, "--until", "6", "--json"], in: dir)
    #expect(early.status == 0)
    #expect(early.stdout.contains("\"session\":null"))
    #expect(!early.stdout.contains("\"theme\""))
    let stats = try await replay([session, "--until", "10", "--stats"], in: dir)
    #expect(stats.stdout.contains(": 10 events"))
  }

  @Test func stepsThroughEventsAndWhatTheyChanged() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let steps = try await replay([session, "--step", "--from", "19", "--until", "20"], in: dir)
    #expect(steps.status == 0)
    let lines = steps.stdout.split(separator: "\n")
    #expect(lines.first?.hasPrefix("#19 ") == true)
    #expect(lines.contains { $0.hasPrefix("#20 ") && $0.contains("ratingSubmitted") })
    #expect(lines.contains { $0.contains("~ skills.Knowledge.Synonyms.rating.fourStar: 0 → 1") })
    #expect(!lines.contains { $0.hasPrefix("#18 ") || $0.hasPrefix("#21 ") })
    let json = try await replay([session, "--step", "--json", "--until", "3"], in: dir)
    let objects = json.stdout.split(separator: "\n").map {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(objects.count == 3)
    #expect(
      objects.allSatisfy { $0?["seq"] != nil && $0?["changes"] != nil && $0?["effects"] != nil })
  }

  @Test func aStepShowsTheRequestThatCarriedAnEvent() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/served.jsonl"
    try """
    {"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"webhook","requestId":"5c1e9a0f-17","type":"logout","payload":{}}

    """.write(toFile: path, atomically: true, encoding: .utf8)
    let json = try await replay([path, "--step", "--json"], in: dir)
    #expect(json.status == 0, "\(json.stderr)")
    #expect(json.stdout.contains(#""origin":"webhook","requestId":"5c1e9a0f-17""#))
    let text = try await replay([path, "--step"], in: dir)
    #expect(text.stdout.contains("webhook[5c1e9a0f-17]"))
  }

  @Test func countsEventsByTypeAndOrigin() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let stats = try await replay([session, "--stats", "--json"], in: dir)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
    #expect(object["events"] as? Int == sessionEvents)
    #expect((object["types"] as? [String: Int])?["messageReceived"] == 15)
    #expect((object["origins"] as? [String: Int])?["runner"] != nil)
  }

  @Test func verifiesAgainstASecondProcessAndTheRecordedState() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let ok = try await replay([session, "--verify"], in: dir)
    #expect(ok.status == 0, "\(ok.stderr)")
    #expect(ok.stdout.contains("verified: \(sessionEvents) events"))
    #expect(ok.stdout.contains("session.state.json"))
    // A recorded state that the log does not give is a failure, with the difference.
    try FileManager.default.copyItem(atPath: session, toPath: dir + "/copy.jsonl")
    let golden = try String(
      contentsOf: Self.events.appendingPathComponent("session.state.json"), encoding: .utf8)
    try golden.replacingOccurrences(
      of: "\"server\": \"embedded\"", with: "\"server\": \"https://other.example\""
    )
    .write(toFile: dir + "/copy.state.json", atomically: true, encoding: .utf8)
    let bad = try await replay([dir + "/copy.jsonl", "--verify"], in: dir)
    #expect(bad.status == 65)
    #expect(
      bad.stderr.contains("~ server: \"https://other.example\" → \"embedded\""), "\(bad.stderr)")
  }

  @Test func aDamagedLogIsReportedWithItsLineAndNothingAfterIsApplied() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: session)))
    // Flip one letter inside line 30.
    var line = 1
    var index = 0
    while line < 30 {
      if bytes[index] == 0x0a { line += 1 }
      index += 1
    }
    index += 40
    bytes[index] ^= 0x01
    let damaged = dir + "/damaged.jsonl"
    try Data(bytes).write(to: URL(fileURLWithPath: damaged))
    let run = try await replay([damaged], in: dir)
    #expect(run.status == 65)
    #expect(run.stderr.contains("damaged.jsonl:30:"))
    #expect(run.stdout.isEmpty)
  }

  @Test func aNulByteInTheLastCompleteRecordIsDamageEverywhere() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: session)))
    let lastStart = (bytes.dropLast().lastIndex(of: 0x0a) ?? -1) + 1
    bytes[lastStart + 30] = 0
    let damaged = dir + "/nul.jsonl"
    try Data(bytes).write(to: URL(fileURLWithPath: damaged))
    for mode in [[], ["--digest"], ["--stats"], ["--stats", "--json"], ["--verify"]] {
      let run = try await replay([damaged] + mode, in: dir)
      #expect(run.status == 65, "\(mode): \(run.stdout)")
      #expect(run.stderr.contains("nul.jsonl:\(sessionEvents):"), "\(mode): \(run.stderr)")
    }
    // A start refuses the log rather than cutting the record off and reusing its seq.
    let start = try await susi.run(
      ["jsonl", "--state-dir", dir, "--log", damaged, "--fsync", "never"], input: "",
      environment: SusiBinary.isolatedEnvironment(dir))
    #expect(start.status == 65, "\(start.stderr)")
    #expect(start.stderr.contains(":\(sessionEvents)"))
    #expect(try Array(Data(contentsOf: URL(fileURLWithPath: damaged))) == bytes)
  }

  @Test func aTornTailIsReportedByEveryModeAndFailsVerify() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: session)))
    let torn = dir + "/torn.jsonl"
    try Data(bytes.dropLast(7)).write(to: URL(fileURLWithPath: torn))
    for mode in [[], ["--json"], ["--digest"], ["--stats"], ["--stats", "--json"]] {
      let run = try await replay([torn] + mode, in: dir)
      #expect(run.status == 0, "\(mode): \(run.stderr)")
      #expect(
        run.stderr.contains("warning: removed") || run.stderr.contains("warning: ignored"),
        "\(mode): \(run.stderr)")
      #expect(run.stderr.contains("line \(sessionEvents)"), "\(mode): \(run.stderr)")
    }
    let verify = try await replay([torn, "--verify"], in: dir)
    #expect(verify.status == 65)
    #expect(verify.stderr.contains("NOT verified"))
    #expect(!verify.stdout.contains("verified:"))
  }

  @Test func aMissingLogIsNamed() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let run = try await replay([dir + "/nothing.jsonl"], in: dir)
    #expect(run.status == 66)
    #expect(run.stderr.contains("no log at"))
  }
}

/// `susi replay` prints texts from a log, which may hold anything a server sent: no escape
/// sequence in them reaches the terminal.
@Suite struct ReplayTerminalSafetyTests {
  @Test func theSummaryOfAHostileLogHoldsNoEscapeSequence() async throws {
    let susi = try SusiBinary.built()
    let dir = TestScratch.root.appendingPathComponent(
      "susi-replay-hostile-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let hostile = #"\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u001b]0;owned\u0007"#
    let log = """
      {"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"cli","requestId":"r\(hostile)","type":"sendMessage","payload":{"query":"hi\(hostile)"}}
      {"seq":2,"at":"2026-11-21T10:00:00.100Z","origin":"runner","cause":1,"type":"messageReceived","payload":{"query":"hi","answers":[{"type":"answer","expression":"ok\(hostile)"}]}}
      {"seq":3,"at":"2026-11-21T10:00:01.000Z","origin":"cli","type":"setServer","payload":{"url":"http://h\(hostile)/"}}

      """
    let path = dir + "/hostile.jsonl"
    try log.write(toFile: path, atomically: true, encoding: .utf8)
    for arguments in [[path], [path, "--step"], [path, "--stats"]] {
      let output = try await susi.run(
        ["replay"] + arguments, environment: SusiBinary.isolatedEnvironment(dir))
      #expect(output.status == 0, "\(arguments): \(output.stderr)")
      for stream in [output.stdout, output.stderr] {
        #expect(!stream.contains("\u{1B}]"), "\(arguments)")
        #expect(!stream.contains("\u{1B}[2J"), "\(arguments)")
        #expect(!stream.contains("\u{07}"), "\(arguments)")
      }
    }
  }
}
