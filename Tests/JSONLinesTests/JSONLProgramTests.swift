import Foundation
import SusiCore
import SusiHTTPTesting
import SusiJSON
import Testing

/// What a program driving `susi jsonl` meets: values in the server's own form, skills it never
/// loaded, and what a previous run left behind.
@Suite struct JSONLProgramTests {
  private static let account = #""email":"ada@example.org","password":"Correct-Horse-7""#

  /// Sends one line and returns the result it caused (the line after its intent).
  private func result(
    _ susi: JSONLProcess, _ line: String, id: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> JSON {
    susi.send(line)
    var intent: JSON?
    let lines = try await susi.lines { line in
      if line["origin"] == "jsonl" && line["id"] == .string(id) { intent = line }
      return line["cause"] != nil && line["cause"] == intent?["seq"]
    }
    return try #require(lines.last, sourceLocation: sourceLocation)
  }

  private func signUpAndLogIn(_ susi: JSONLProcess) async throws {
    let signedUp = try await result(
      susi, #"{"type":"signup","payload":{\#(Self.account)},"id":"signup"}"#, id: "signup")
    #expect(signedUp["type"] == "signedUp")
    let loggedIn = try await result(
      susi, #"{"type":"login","payload":{\#(Self.account)},"id":"login"}"#, id: "login")
    #expect(loggedIn["type"] == "loggedIn")
  }

  /// The state `susi replay` rebuilds from the log.
  private func replayedState(_ folder: String) async throws -> JSON {
    let replayed = try await JSONLBinary.run(["replay", folder + "/events.jsonl", "--json"])
    #expect(replayed.status == 0)
    return try JSONParser.parse(replayed.output)
  }

  @Test func settingsInTheServersStringFormAreStoredTypedAndForgottenAtLogout() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let susi = try JSONLProcess([], folder: folder)
    try await signUpAndLogIn(susi)

    let changed = try await result(
      susi,
      #"{"type":"changeSettings","payload":{"settings":{"speechRate":"0.8","enterAsSend":"true","theme":"dark"}},"id":"set"}"#,
      id: "set")
    #expect(changed["type"] == "settingsChanged", "\(changed)")
    #expect(changed["payload"]?["settings"]?["speechRate"]?.double == 0.8)
    #expect(changed["payload"]?["settings"]?["enterAsSend"] == true)

    let purple = try await result(
      susi, #"{"type":"changeSettings","payload":{"settings":{"theme":"purple"}},"id":"purple"}"#,
      id: "purple")
    #expect(purple["type"] == "actionRejected")
    #expect(
      purple["payload"]?["reason"]
        == "setting 'theme' takes one of light, dark, custom, not 'purple'")

    let synced = try await result(susi, #"{"type":"syncSettings","id":"sync"}"#, id: "sync")
    #expect(synced["payload"]?["settings"]?["theme"] == "dark")
    #expect(synced["payload"]?["settings"]?["speechRate"]?.double == 0.8)

    let loggedOut = try await result(susi, #"{"type":"logout","id":"logout"}"#, id: "logout")
    #expect(loggedOut["type"] == "loggedOut")
    susi.closeInput()
    _ = try await susi.remainingLines()
    #expect(await susi.exitStatus() == 0, "stderr: \(susi.stderrText)")
    #expect(try await replayedState(folder)["settings"] == [:])
  }

  @Test func ratesAndReadsTheRatingOfASkillNeverLoadedAndRefusesOneTheServerDoesNotKnow()
    async throws
  {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let susi = try JSONLProcess([], folder: folder)
    try await signUpAndLogIn(susi)

    // No loadGroups, no loadSkills: the runner looks the skill up itself.
    let rated = try await result(
      susi,
      #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Capitals","stars":4},"id":"rate"}"#,
      id: "rate")
    #expect(rated["type"] == "ratingSubmitted", "\(rated)")
    #expect(rated["payload"]?["resolved"]?["name"] == "Capitals")
    #expect(rated["payload"]?["resolved"]?["author"] == "Chen Wu")

    let mine = try await result(
      susi,
      #"{"type":"loadUserRating","payload":{"group":"Knowledge","skill":"Synonyms"},"id":"mine"}"#,
      id: "mine")
    #expect(mine["type"] == "userRatingLoaded", "\(mine)")
    #expect(mine["payload"]?["stars"] == .null)
    #expect(mine["payload"]?["resolved"]?["name"] == "Synonyms")

    let ghost = try await result(
      susi,
      #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Ghost","stars":4},"id":"ghost"}"#,
      id: "ghost")
    #expect(ghost["type"] == "requestFailed", "\(ghost)")
    #expect(ghost["payload"]?["error"]?["kind"] == "notFound")
    #expect(
      ghost["payload"]?["error"]?["message"]?.string?.hasPrefix(
        "unknown skill 'Ghost' in group 'Knowledge'") == true)

    susi.closeInput()
    _ = try await susi.remainingLines()
    #expect(await susi.exitStatus() == 0, "stderr: \(susi.stderrText)")
    // Replay learns the skills from the logged results, as the live run did.
    let state = try await replayedState(folder)
    #expect(state["skills"]?["Knowledge"]?["Capitals"]?["rating"]?["fourStar"] == 1)
    #expect(state["skills"]?["Knowledge"]?["Synonyms"]?["name"] == "Synonyms")
    #expect(state["skills"]?["Knowledge"]?["Ghost"] == nil)
  }

  /// A question to a server that accepts and never answers: a request surely still in flight
  /// when `--no-wait` ends the run, whatever the machine's load.
  private static let question =
    #"{"type":"sendMessage","payload":{"query":"hello"},"id":"timer"}"#

  /// A folder whose log holds a question left unanswered by `--no-wait`; returns its seq.
  private func abandonedQuestion(_ folder: String, server: String) async throws -> JSON {
    let susi = try JSONLProcess(["--no-wait", "--server", server], folder: folder)
    susi.send(Self.question)
    susi.closeInput()
    let lines = try await susi.remainingLines()
    #expect(await susi.exitStatus() == 0, "stderr: \(susi.stderrText)")
    return try #require(lines.first { $0["type"] == "sendMessage" }?["seq"])
  }

  private func outputLines(_ arguments: [String]) async throws -> [JSON] {
    let run = try await JSONLBinary.run(arguments)
    #expect(run.status == 0)
    return try run.output.split(separator: "\n").map { try JSONParser.parse(String($0)) }
  }

  @Test func writesTheRequestsOfAPreviousRunClosedAtStartToStdout() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let server = try #require(SilentServer())
    let asked = try await abandonedQuestion(folder, server: server.url)

    let lines = try await outputLines([
      "jsonl", "--state-dir", folder, "--no-wait", "--server", server.url,
    ])
    #expect(lines.count == 1, "\(lines)")
    let closed = try #require(lines.first)
    #expect(closed["type"] == "requestFailed")
    #expect(closed["origin"] == "store")
    #expect(closed["cause"] == asked)
    #expect(closed["id"] == "timer", "a closed request keeps its line's id")
    #expect(closed["payload"]?["error"]?["kind"] == "interrupted")

    // Closed once: the next start has nothing more to say.
    #expect(
      try await outputLines([
        "jsonl", "--state-dir", folder, "--no-wait", "--server", server.url,
      ]).isEmpty)
  }

  @Test func withReplayFirstTheClosedRequestsComeBeforeTheStateThatIncludesThem() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let server = try #require(SilentServer())
    let asked = try await abandonedQuestion(folder, server: server.url)

    let lines = try await outputLines([
      "jsonl", "--state-dir", folder, "--no-wait", "--replay-first", "--server", server.url,
    ])
    #expect(lines.count == 2, "\(lines)")
    #expect(lines.first?["type"] == "requestFailed")
    #expect(lines.first?["cause"] == asked)
    #expect(lines.last?["seq"] == lines.first?["seq"])
    #expect(lines.last?["state"]?["inFlight"] == [:])
  }

  /// A server chosen with a `setServer` intent is remembered for the next start; `--server`
  /// applies to its run only.
  @Test func theServerChosenLastIsKeptForTheNextStart() async throws {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let server = try #require(SilentServer())
    let susi = try JSONLProcess([], folder: folder)
    let changed = try await result(
      susi, #"{"type":"setServer","payload":{"url":"\#(server.url)"},"id":"s"}"#, id: "s")
    #expect(changed["type"] == "serverChanged")
    susi.closeInput()
    _ = try await susi.remainingLines()
    #expect(await susi.exitStatus() == 0)

    func stateServer(_ extra: [String]) async throws -> JSON? {
      let lines = try await outputLines(
        ["jsonl", "--state-dir", folder, "--no-wait", "--replay-first"] + extra)
      return lines.last?["state"]?["server"]
    }
    #expect(try await stateServer([]) == .string(server.url))
    #expect(try await stateServer(["--server", "embedded"]) == "embedded")
    #expect(try await stateServer([]) == .string(server.url))
  }

  @Test func aLoadReplacedByANewerOneEndsAsSuperseded() async throws {
    // Both loads go to a server that never answers: each stays in flight until susi replaces
    // or cancels it, or until its idle timeout (15 s of real time) ends it. On a machine so busy
    // that the timeout comes first the attempt shows nothing, and is made again; superseding
    // or cancelling that does not work ends every attempt that way, and the last one fails.
    for attempt in 1...3 {
      if try await loadReplacedThenCancelled(lastAttempt: attempt == 3) { return }
    }
  }

  /// One attempt of `aLoadReplacedByANewerOneEndsAsSuperseded`; false (and nothing checked)
  /// when a request timed out before it could be replaced or cancelled, unless `lastAttempt`.
  private func loadReplacedThenCancelled(lastAttempt: Bool) async throws -> Bool {
    let folder = try JSONLBinary.freshFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let server = try #require(SilentServer())
    let susi = try JSONLProcess(["--server", server.url], folder: folder)
    func timedOut(_ line: JSON?) async -> Bool {
      guard !lastAttempt, line?["payload"]?["error"]?["kind"] == "timeout" else { return false }
      susi.closeInput()
      _ = await susi.exitStatus()
      return true
    }
    susi.send(#"{"type":"loadGroups","id":"first"}"#)
    let sent = try await susi.lines { $0["id"] == "first" && $0["type"] == "loadGroups" }
    let first = try #require(sent.last?["seq"])
    susi.send(#"{"type":"loadGroups","id":"second"}"#)
    let lines = try await susi.lines { $0["type"] == "requestFailed" }
    if await timedOut(lines.last) { return false }
    let second = try #require(
      lines.first { $0["id"] == "second" }?["seq"]?.int, "\(lines.map(\.compactText))")
    let replaced = try #require(lines.last)
    #expect(replaced["cause"] == first)
    #expect(replaced["id"] == "first")
    #expect(replaced["payload"]?["error"]?["kind"] == "superseded")
    #expect(
      replaced["payload"]?["error"]?["message"]
        == .string("replaced by the same request of event \(second)"))

    // Cancelling on request still says cancelled.
    susi.send(#"{"type":"cancelRequest","payload":{"seq":\#(second)},"id":"stop"}"#)
    let stopped = try await susi.lines { $0["type"] == "requestFailed" }
    if await timedOut(stopped.last) { return false }
    #expect(stopped.last?["cause"] == .int(second))
    #expect(stopped.last?["payload"]?["error"]?["kind"] == "cancelled")
    susi.closeInput()
    _ = try await susi.remainingLines()
    #expect(await susi.exitStatus() == 0, "stderr: \(susi.stderrText)")
    #expect(try await replayedState(folder)["lastErrors"] == [:])
    return true
  }

  @Test func helpSettingsNamesWhatEveryKeyTakes() async throws {
    let help = try await JSONLBinary.run(["help", "settings"])
    #expect(help.status == 0)
    for line in [
      "  speechRate: a number from 0.1 to 10", "  theme: one of light, dark, custom",
      "  enterAsSend: true or false", "  avatarType: one of default, server, gravatar",
    ] {
      #expect(help.output.contains(line + "\n"), "\(help.output)")
    }
  }
}
