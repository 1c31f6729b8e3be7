import Foundation
import SusiCore
import SusiHTTPTesting
import SusiJSON
import Testing

/// The built `susi jsonl` against the built-in server, as another program would drive it.
@Suite struct JSONLBinaryTests {
  /// Sends one line and reads until its intent and the result it caused have both come out;
  /// returns the two, after checking they belong together.
  private func exchange(
    _ susi: JSONLProcess, _ line: String, id: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> (intent: JSON, result: JSON) {
    susi.send(line)
    var intent: JSON?
    let lines = try await susi.lines { line in
      if line["origin"] == "jsonl" && line["id"] == .string(id) { intent = line }
      return line["cause"] != nil && line["cause"] == intent?["seq"]
    }
    let result = try #require(lines.last, sourceLocation: sourceLocation)
    let sent = try #require(intent, sourceLocation: sourceLocation)
    #expect(
      lines.count == 2, "expected the intent and its result, got \(lines)",
      sourceLocation: sourceLocation)
    #expect(
      result["id"] == .string(id), "a result carries its line's id", sourceLocation: sourceLocation)
    #expect(result["origin"] == "runner", sourceLocation: sourceLocation)
    return (sent, result)
  }

  @Test func drivesEveryIntentAgainstTheBuiltInServer() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let susi = try JSONLProcess([], folder: folder)

    var (intent, result) = try await exchange(
      susi, #"{"type":"setServer","payload":{"url":"gopher://old.example"},"id":"server"}"#,
      id: "server")
    #expect(intent["type"] == "setServer")
    #expect(result["type"] == "actionRejected")

    let account = #""email":"ada@example.org","password":"Correct-Horse-7""#
    (intent, result) = try await exchange(
      susi, #"{"type":"signup","payload":{\#(account)},"id":"signup"}"#, id: "signup")
    #expect(intent["payload"]?["password"] == "[redacted]")
    #expect(result["type"] == "signedUp")

    (_, result) = try await exchange(
      susi, #"{"type":"login","payload":{\#(account)},"id":"login"}"#, id: "login")
    #expect(result["type"] == "loggedIn")
    #expect(result["payload"]?["email"] == "ada@example.org")

    (_, result) = try await exchange(susi, #"{"type":"loadGroups","id":"groups"}"#, id: "groups")
    #expect(result["type"] == "groupsLoaded")
    #expect(result["payload"]?["groups"]?.array?.contains("Knowledge") == true)

    (_, result) = try await exchange(
      susi, #"{"type":"loadSkills","payload":{"group":"Knowledge"},"id":"skills"}"#, id: "skills")
    #expect(result["type"] == "skillsLoaded")
    let skill = try #require(result["payload"]?["skills"]?.array?.first?["tag"]?.string)

    (_, result) = try await exchange(
      susi,
      #"{"type":"loadSkill","payload":{"group":"Knowledge","skill":"\#(skill)"},"id":"skill"}"#,
      id: "skill")
    #expect(result["type"] == "skillLoaded")
    #expect(result["payload"]?["skill"]?["tag"] == .string(skill))

    (_, result) = try await exchange(
      susi,
      #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"\#(skill)","stars":4},"id":"rate"}"#,
      id: "rate")
    #expect(result["type"] == "ratingSubmitted")
    #expect(result["payload"]?["stars"] == 4)

    (_, result) = try await exchange(
      susi,
      #"{"type":"loadUserRating","payload":{"group":"Knowledge","skill":"\#(skill)"},"id":"mine"}"#,
      id: "mine")
    #expect(result["type"] == "userRatingLoaded")
    #expect(result["payload"]?["stars"] == 4)

    (_, result) = try await exchange(
      susi, #"{"type":"changeSettings","payload":{"settings":{"theme":"dark"}},"id":"set"}"#,
      id: "set")
    #expect(result["type"] == "settingsChanged")

    (_, result) = try await exchange(susi, #"{"type":"syncSettings","id":"sync"}"#, id: "sync")
    #expect(result["type"] == "settingsSynced")
    #expect(result["payload"]?["settings"]?["theme"] == "dark")

    (_, result) = try await exchange(
      susi, #"{"type":"sendMessage","payload":{"query":"hello"},"id":"chat"}"#, id: "chat")
    #expect(result["type"] == "messageReceived")
    #expect(result["payload"]?["answers"]?.array?.isEmpty == false)

    (_, result) = try await exchange(susi, #"{"type":"loadHistory","id":"history"}"#, id: "history")
    #expect(result["type"] == "historyLoaded")

    (_, result) = try await exchange(
      susi, #"{"type":"search","payload":{"query":"berlin"},"id":"search"}"#, id: "search")
    #expect(result["type"] == "websearchLoaded")
    // The built-in server's address is only known from what it serves.
    let page = try #require(
      result["payload"]?["results"]?.array?.compactMap { $0["link"]?.string }.first {
        $0.hasSuffix("/pages/cafe.html")
      })
    let icon = try #require(
      result["payload"]?["results"]?.array?.compactMap { $0["icon"]?.string }.first)

    (_, result) = try await exchange(
      susi, #"{"type":"loadLinkPreview","payload":{"url":"\#(page)"},"id":"preview"}"#,
      id: "preview")
    #expect(result["type"] == "linkPreviewLoaded")
    #expect(result["payload"]?["title"]?.string?.isEmpty == false)

    (_, result) = try await exchange(
      susi, #"{"type":"cacheImage","payload":{"url":"\#(icon)"},"id":"image"}"#, id: "image")
    #expect(result["type"] == "imageCached")
    #expect((result["payload"]?["bytes"]?.int ?? 0) > 0)

    (_, result) = try await exchange(
      susi, #"{"type":"cancelRequest","payload":{"seq":9999},"id":"cancel"}"#, id: "cancel")
    #expect(result["type"] == "actionRejected")

    susi.send(#"{"type":"loggedOut","id":"sneaky"}"#)
    let refusal = try await susi.next()
    #expect(refusal["id"] == "sneaky")
    #expect(refusal["error"]?["code"] == "result_type")

    (_, result) = try await exchange(susi, #"{"type":"logout","id":"logout"}"#, id: "logout")
    #expect(result["type"] == "loggedOut")

    susi.closeInput()
    #expect(try await susi.remainingLines().isEmpty)
    #expect(await susi.exitStatus() == 0, "stderr: \(susi.stderrText)")
    try await expectLogReplays(folder)
    // What came out is exactly what the log holds, byte for byte, error lines aside.
    let log = try String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8)
    let eventLines = susi.rawLines.filter { !$0.hasPrefix(#"{"id":"#) }
    #expect(eventLines == log.split(separator: "\n").map(String.init))
    #expect(eventLines.count == 34)
  }

  /// The log holds no password, and folding it through `reduce` gives what `susi replay` gives.
  private func expectLogReplays(
    _ folder: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let log = try String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8)
    #expect(!log.contains("Correct-Horse-7"), sourceLocation: sourceLocation)
    var state = State()
    for line in log.split(separator: "\n") {
      _ = reduce(&state, try Event.decode(Array(line.utf8)))
    }
    let replayed = try await JSONLBinary.run(["replay", folder + "/events.jsonl", "--json"])
    #expect(replayed.status == 0, sourceLocation: sourceLocation)
    #expect(
      try JSONParser.parse(replayed.output) == state.json, "replay differs from folding the log",
      sourceLocation: sourceLocation)
  }

  /// A chat query whose answer plans a second answer an hour later, so that it never falls due
  /// during a test. A minute was not enough: the whole suite runs at once, and on 2 cores this
  /// test's own steps were seen to wait most of a minute for their turn, long enough for the
  /// planned answer to come. A drain that waited for it runs into `--drain-timeout` instead,
  /// which says so on stderr.
  private static let timer =
    #"{"type":"sendMessage","payload":{"query":"set a timer for 60 minutes"},"id":"timer"}"#

  private func isDelayedAnswer(_ line: JSON) -> Bool {
    line["type"] == "messageReceived"
      && line["payload"]?["answers"]?.array?.first?["expression"] == "Your 60 minute timer is done."
  }

  @Test func waitsForAnswersNowButNotForPlannedOnesWhenStdinClosesThenExitsZero() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let susi = try JSONLProcess([], folder: folder)
    susi.send(Self.timer)
    susi.send(#"{"type":"sendMessage","payload":{"query":"hello"},"id":"hello"}"#)
    susi.closeInput()
    let lines = try await susi.remainingLines()
    #expect(await susi.exitStatus() == 0, "stderr: \(susi.stderrText)")
    #expect(!susi.stderrText.contains("--drain-timeout"), "the drain ran out of time")
    // Both answers are written; the one the timer planned stays in the log for later.
    let answered = lines.filter { $0["type"] == "messageReceived" }.compactMap { $0["id"]?.string }
    #expect(answered.sorted() == ["hello", "timer"])
    #expect(lines.filter { $0["type"] == "sendMessage" }.count == 2)
    #expect(!lines.contains(where: isDelayedAnswer))
    try await expectLogReplays(folder)
    let log = try String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8)
    #expect(log.split(separator: "\n").count == 4)
    #expect(!log.contains(#""kind":"interrupted""#))
  }

  @Test func drainsOnSigtermThenExitsZero() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let susi = try JSONLProcess([], folder: folder)
    susi.send(Self.timer)
    let first = try await susi.lines { $0["type"] == "messageReceived" }
    #expect(first.map { $0["type"] } == ["sendMessage", "messageReceived"])
    susi.send(#"{"type":"sendMessage","payload":{"query":"hello"},"id":"hello"}"#)
    _ = try await susi.lines { $0["type"] == "sendMessage" }
    // stdin stays open: only the signal ends the session, once the answer to hello is written.
    susi.signal(SIGTERM)
    let rest = try await susi.remainingLines()
    #expect(await susi.exitStatus() == 0, "stderr: \(susi.stderrText)")
    #expect(!susi.stderrText.contains("--drain-timeout"), "the drain ran out of time")
    let answered = (first + rest).filter { $0["type"] == "messageReceived" }
    #expect(answered.contains { $0["id"] == "hello" })
    #expect(!rest.contains(where: isDelayedAnswer), "the planned answer is not waited for")
    try await expectLogReplays(folder)
  }

  @Test func aSecondSignalEndsTheDrainAtOnce() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // A server that never answers: only the second signal can end the drain in time.
    let server = try #require(SilentServer())
    let susi = try JSONLProcess(["--server", server.url], folder: folder)
    susi.send(#"{"type":"sendMessage","payload":{"query":"hello"}}"#)
    _ = try await susi.lines { $0["type"] == "sendMessage" }
    susi.signal(SIGTERM)
    // Signals of one kind sent back to back may arrive as one: wait until the first is taken.
    let deadline = ContinuousClock.now + .seconds(hangLimitSeconds)
    while !susi.stderrText.contains("stopping"), ContinuousClock.now < deadline {
      await Task.yield()
    }
    susi.signal(SIGTERM)
    let rest = try await susi.remainingLines()
    let status = await susi.exitStatus()
    #expect(!rest.contains { $0["type"] == "messageReceived" })
    // Only on a machine so slow that the request timed out (15 s without a byte) before the
    // second signal did the drain end by itself.
    if !rest.contains(where: { $0["type"] == "requestFailed" }) {
      #expect(status == 128 + SIGTERM, "stderr: \(susi.stderrText)")
    }
    try await expectLogReplays(folder)
  }

  @Test func exitsWithoutWaitingWithNoWaitAndTheNextRunClosesTheRequest() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // A server that never answers: the question is surely in flight when the input ends.
    let server = try #require(SilentServer())
    let susi = try JSONLProcess(["--no-wait", "--server", server.url], folder: folder)
    susi.send(#"{"type":"sendMessage","payload":{"query":"hello"}}"#)
    susi.closeInput()
    let lines = try await susi.remainingLines()
    #expect(await susi.exitStatus() == 0, "stderr: \(susi.stderrText)")
    // Start-up switches to the server asked for; then the question, and nothing more.
    #expect(lines.map { $0["type"] } == ["setServer", "serverChanged", "sendMessage"])

    // The next run finds the question unanswered, closes it, and says so in its state (after
    // the line that closed it).
    let next = try await JSONLBinary.run([
      "jsonl", "--state-dir", folder, "--replay-first", "--no-wait", "--server", server.url,
    ])
    #expect(next.status == 0)
    let stateLine = try JSONParser.parse(
      try #require(next.output.split(separator: "\n").last.map(String.init)))
    let log = try String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8)
    #expect(stateLine["seq"] == .int(log.split(separator: "\n").count))
    #expect(stateLine["state"]?["inFlight"] == [:])
    #expect(log.contains(#""kind":"interrupted""#))
    try await expectLogReplays(folder)
  }

  /// The two lines of the reported attack: no key, yet they named the admin key as the actor.
  static let accessAttack = [
    #"{"type":"grantPrivilege","payload":{"by":"key_0123456789abcdef","group":"default","privilege":"subscribers.manage"},"id":"grant"}"#,
    #"{"type":"revokeKey","payload":{"by":"key_0123456789abcdef","key":"key_0123456789abcdef"},"id":"revoke"}"#,
  ]

  @Test func refusesAccessChangesUnlessStartedWithAllowAdmin() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let susi = try JSONLProcess([], folder: folder)
    for line in Self.accessAttack { susi.send(line) }
    susi.closeInput()
    let lines = try await susi.remainingLines()
    #expect(await susi.exitStatus() == 0, "stderr: \(susi.stderrText)")
    #expect(lines.map { $0["error"]?["code"] } == ["admin_only", "admin_only"])
    #expect(lines.map { $0["id"] } == ["grant", "revoke"])
    let log = (try? String(contentsOfFile: folder + "/events.jsonl", encoding: .utf8)) ?? ""
    #expect(log.isEmpty, "nothing is logged: \(log)")
  }

  @Test func withAllowAdminRecordsAccessChangesAsLocal() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let susi = try JSONLProcess(["--allow-admin"], folder: folder)
    susi.send(Self.accessAttack[0])
    susi.send(
      #"{"type":"grantPrivilege","payload":{"group":"default","privilege":"subscribers.manage"},"id":"grant"}"#
    )
    susi.closeInput()
    let lines = try await susi.remainingLines()
    #expect(await susi.exitStatus() == 0, "stderr: \(susi.stderrText)")
    #expect(lines.first?["error"]?["code"] == "invalid_payload")
    let granted = try #require(lines.first { $0["type"] == "grantPrivilege" })
    #expect(granted["payload"]?["by"] == "local")
    #expect(granted["origin"] == "jsonl")
    #expect(lines.count == 2)
    try await expectLogReplays(folder)
  }

  @Test func refusesATenMebibyteLineWithoutHoldingItAndKeepsServing() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let susi = try JSONLProcess([], folder: folder)
    _ = try await exchange(susi, #"{"type":"loadGroups","id":"warm"}"#, id: "warm")
    let before = try #require(susi.peakMemory)

    var huge = Data(#"{"type":"sendMessage","id":"huge","payload":{"query":""#.utf8)
    huge.append(Data(repeating: UInt8(ascii: "a"), count: 10 << 20))
    huge.append(Data("\"}}\n".utf8))
    let line = huge
    let writer = Thread { susi.send(bytes: line) }
    writer.start()
    let refusal = try await susi.next()
    #expect(refusal["id"] == .null)
    #expect(refusal["error"]?["code"] == "line_too_long")

    let (_, result) = try await exchange(susi, #"{"type":"loadGroups","id":"after"}"#, id: "after")
    #expect(result["type"] == "groupsLoaded")
    let after = try #require(susi.peakMemory)
    #expect(after - before < 6 << 20, "peak memory grew by \(after - before) bytes")
    susi.closeInput()
    #expect(await susi.exitStatus() == 0)
  }
}
