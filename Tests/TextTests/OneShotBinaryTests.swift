import Foundation
import SusiHTTPTesting
import SusiJSON
import SusiTesting
import Testing

/// One-shot commands through the built `susi`, against its built-in server: reminders that do
/// not block, `--json`, output width and time zones, images, and options refused where they do
/// not apply.
@Suite
struct OneShotBinaryTests {
  let susi: SusiBinary

  /// Fails every test of the suite, never skips it, when the binary is missing.
  init() throws {
    susi = try SusiBinary.built()
  }
  let folder = FileManagerTestFolder()

  var isolation: [String] { ["--state-dir", folder.path + "/state"] }
  func environment(_ extra: [String: String] = [:]) -> [String: String] {
    SusiBinary.isolatedEnvironment(folder.path, extra)
  }

  func run(_ arguments: [String], input: String = "", _ extra: [String: String] = [:])
    async throws -> SusiProcess.Output
  {
    try await susi.run(
      arguments + isolation, input: input, environment: environment(extra), timeout: 120)
  }

  /// How many planned answers the log holds in flight, as `susi replay --json` rebuilds them.
  func plannedInLog() async throws -> Int {
    let replayed = try await susi.run(
      ["replay", folder.path + "/state/events.jsonl", "--json"], environment: environment([:]))
    let inFlight = try JSONParser.parse(replayed.stdout)["inFlight"]?.object
    return inFlight?.filter { $0.value["due"]?.string != nil }.count ?? -1
  }

  var log: String {
    (try? String(contentsOfFile: folder.path + "/state/events.jsonl", encoding: .utf8)) ?? ""
  }

  @Test func aReminderIsAnsweredAtOnceAndStaysPendingForTheNextRun() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let asked = try await run(["ask", "remind me to drink water"])
    #expect(asked.status == 0, "stderr: \(asked.stderr)")
    #expect(asked.stdout == "I will remind you in 30 minutes.\n")
    #expect(asked.stderr.hasPrefix("SUSI planned another answer, due at "))
    #expect(asked.stderr.contains("(in 30 min") || asked.stderr.contains("(in 29 min"))
    #expect(asked.stderr.contains("--wait"))

    // The same line piped into the chat: the same answer and note, exit 0.
    let piped = try await run([], input: "remind me to drink water\n")
    #expect(piped.status == 0, "stderr: \(piped.stderr)")
    #expect(piped.stdout == "I will remind you in 30 minutes.\n")
    #expect(piped.stderr.hasPrefix("SUSI planned another answer, due at "))

    // The next run keeps both pending (rescheduled, not closed as interrupted); its own
    // --json=events lists only what it planned itself: nothing.
    let next = try await run(["groups", "--json=events"])
    #expect(next.status == 0, "stderr: \(next.stderr)")
    let document = try JSONParser.parse(next.stdout)
    #expect(document["pending"] == [])
    #expect(try await plannedInLog() == 2)
    #expect(!log.contains(#""kind":"interrupted""#))
  }

  @Test func aReminderDueWhileSusiWasNotRunningIsShownByTheNextRun() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let asked = try await run(["ask", "set a timer for 1 seconds"])
    #expect(asked.status == 0, "stderr: \(asked.stderr)")
    #expect(!asked.stdout.contains("timer is done"))
    // Runs before the timer is due reschedule it and leave; the run it comes due in shows it:
    // marked late, before the command's own output, when it came due before that run started.
    // Each run is a real start; the deadline only keeps a broken build from looping forever.
    var shown: SusiProcess.Output?
    for _ in 0..<300 where shown == nil {
      let next = try await run(["groups"])
      #expect(next.status == 0, "stderr: \(next.stderr)")
      if next.stdout.contains("timer is done") { shown = next }
    }
    let run = try #require(shown)
    #expect(run.stdout.components(separatedBy: "Your 1 second timer is done.").count == 2)
    if run.stderr.contains("here it is, late") {
      #expect(
        run.stderr.hasPrefix("A planned answer to \"set a timer for 1 seconds\" was due at "),
        "\(run.stderr)")
      #expect(
        run.stdout.hasPrefix("Your 1 second timer is done.\nArt and Beauty\n"), "\(run.stdout)")
    }
    let after = try await self.run(["groups", "--json=events"])
    #expect(try JSONParser.parse(after.stdout)["pending"] == [])
    #expect(try await plannedInLog() == 0)
    #expect(!after.stdout.contains("timer is done"))
    #expect(!log.contains(#""kind":"interrupted""#))
  }

  @Test func waitWaitsForThePlannedAnswerWithACountdownOnATerminalOnly() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let timer = ["ask", "--wait", "set a timer for 1 seconds"]
    let piped = try await run(timer)
    #expect(piped.status == 0, "stderr: \(piped.stderr)")
    #expect(piped.stdout.hasSuffix("Your 1 second timer is done.\n"))
    #expect(!piped.stderr.contains("Waiting for"), "no countdown in a pipe")

    let path = susi.path
    let arguments = timer + isolation
    let environment = environment()
    let (output, status) = try await onThread {
      try TextPseudoTerminal.run(path, arguments, environment: environment, typing: false)
    }
    #expect(status == 0)
    #expect(output.contains("Waiting for a planned answer, due at "))
    #expect(output.contains("Your 1 second timer is done."))
  }

  @Test func jsonPrintsTheDataAndJsonEventsTheEventsOfTheCommand() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let data = try await run(["groups", "--json"])
    #expect(data.status == 0, "stderr: \(data.stderr)")
    let listed = try JSONParser.parse(data.stdout)["groups"]?.array
    #expect(listed?.contains("Knowledge") == true)
    let answer = try await run(["ask", "--json", "flip a coin"])
    let expression = try JSONParser.parse(answer.stdout)["answers"]?.array?.first?["expression"]
    #expect(expression == "heads" || expression == "tails", "\(answer.stdout)")
    let settings = try await run(["settings", "--json"])
    #expect(settings.stdout == #"{"settings":{}}"# + "\n")
    let version = try await run(["version", "--json"])
    #expect(try JSONParser.parse(version.stdout)["version"]?.string?.isEmpty == false)
    let bad = try await run(["groups", "--json=event"])
    #expect(bad.status == 64)
    #expect(bad.stderr.contains("did you mean 'events'?"), "\(bad.stderr)")

    let groups = try await run(["groups", "--json=events"])
    #expect(groups.status == 0, "stderr: \(groups.stderr)")
    let document = try JSONParser.parse(groups.stdout)
    #expect(document["command"] == "groups")
    #expect(document["exitCode"] == 0)
    #expect(document["events"]?.array?.map { $0["type"] } == ["loadGroups", "groupsLoaded"])
    #expect(document["pending"] == [])
    #expect(groups.stdout.split(separator: "\n").count == 1)

    let failed = try await run(["skill", "--json=events", "no such skill at all"])
    #expect(failed.status == 1)
    #expect(try JSONParser.parse(failed.stdout)["exitCode"] == 1)
    let failedData = try await run(["skill", "--json", "no such skill at all"])
    #expect(failedData.status == 1 && failedData.stdout.isEmpty)
  }

  @Test func pipedOutputIsNotCutUnlessColumnsIsSet() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let whole = try await run(["skills", "Knowledge"])
    #expect(whole.status == 0)
    #expect(!whole.stdout.contains("…"), "\(whole.stdout)")
    #expect(whole.stdout.split(separator: "\n").contains { $0.count > 80 })
    let narrow = try await run(["skills", "Knowledge"], ["COLUMNS": "40"])
    #expect(narrow.stdout.contains("…"))
    #expect(narrow.stdout.split(separator: "\n").allSatisfy { $0.count <= 40 })
  }

  @Test func timesAreLocalUnlessUTCIsAskedFor() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    // Kolkata is 5:30 ahead of UTC all year.
    let local = try await run(
      ["ask", "--json=events", "remind me to drink water"], ["TZ": "Asia/Kolkata"])
    let due = try #require(
      try JSONParser.parse(local.stdout)["pending"]?.array?.first?["due"]?.string)
    let utcTime =
      try #require(Int(due.dropFirst(11).prefix(2))) * 60
      + (try #require(Int(due.dropFirst(14).prefix(2))))
    let kolkata = (utcTime + 330) % (24 * 60)
    let expected = String(format: "%02d:%02d", kolkata / 60, kolkata % 60)
    // The local time, after the local date when that is another day than today's there.
    #expect(local.stderr.contains("due at "), "\(local.stderr)")
    #expect(local.stderr.contains(" \(expected) (in "), "\(local.stderr)")
    #expect(!local.stderr.contains("UTC"))

    let utc = try await run(["ask", "--utc", "remind me to drink water"], ["TZ": "Asia/Kolkata"])
    #expect(utc.stderr.contains(" UTC (in "), "\(utc.stderr)")
    let zoneUTC = try await run(["ask", "remind me to drink water"], ["TZ": "UTC"])
    #expect(zoneUTC.stderr.contains(" UTC (in "), "\(zoneUTC.stderr)")
  }

  @Test func aSkillImageIsCachedAndItsFileNamed() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let shown = try await run(["skill", "Flip a coin"], ["TERM": "xterm-kitty"])
    #expect(shown.status == 0, "stderr: \(shown.stderr)")
    let line = try #require(
      shown.stdout.split(separator: "\n").first { $0.hasPrefix("Image file: ") })
    let path = String(line.dropFirst("Image file: ".count))
    #expect(path.hasPrefix(folder.path + "/state/images/"))
    #expect(FileManager.default.fileExists(atPath: path))
    #expect(!shown.stdout.contains("\u{1B}_G"), "no inline image in a pipe, even on kitty")
    #expect(log.contains(#""type":"imageCached""#))
  }

  @Test func aSkillImageIsDrawnInlineOnKittyButNotWithNoColor() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let path = susi.path
    let arguments = ["skill", "Flip a coin"] + isolation
    let kitty = environment(["TERM": "xterm-kitty"])
    let (shown, status) = try await onThread {
      try TextPseudoTerminal.run(path, arguments, environment: kitty, typing: false)
    }
    #expect(status == 0, "\(shown)")
    #expect(shown.contains("Image file: "))
    #expect(shown.contains("\u{1B}_Ga=T,f=100,"), "the PNG is sent with the kitty protocol")
    let plain = environment(["TERM": "xterm-kitty", "NO_COLOR": "1"])
    let (quiet, _) = try await onThread {
      try TextPseudoTerminal.run(path, arguments, environment: plain, typing: false)
    }
    #expect(quiet.contains("Image file: "))
    #expect(!quiet.contains("\u{1B}_G"))
  }

  @Test func anAnswerImageIsCachedToo() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let shown = try await run(["ask", "show me a painting"])
    #expect(shown.status == 0, "stderr: \(shown.stderr)")
    #expect(
      shown.stdout.contains("Image file: " + folder.path + "/state/images/"), "\(shown.stdout)")
  }

  @Test func commonOptionsACommandDoesNotUseAreRefused() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let groups = try await run(["groups", "--websearch-url", "http://127.0.0.1:1/"])
    #expect(groups.status == 64)
    #expect(groups.stderr.contains("option '--websearch-url' does not apply to 'susi groups'"))
    let replay = try await run(["replay", "--server", "http://127.0.0.1:1/"])
    #expect(replay.status == 64)
    #expect(replay.stderr.contains("option '--server' does not apply to 'susi replay'"))
    let help = try await run(["help", "replay"])
    #expect(!help.stdout.contains("--server"))
    let keys = try await run(["serve", "keys", "list", "--server", "http://127.0.0.1:1/"])
    #expect(keys.status == 64)
    #expect(keys.stderr.contains("option '--server' does not apply to 'susi serve keys'"))
    let serve = try await run(["serve", "--label", "ci", "-p0"])
    #expect(serve.status == 64)
    #expect(serve.stderr.contains("option '--label' does not apply to 'susi serve'"))
  }

  @Test func aFailedWebSearchNamesItsAddressNotTheServer() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let failed = try await run(["search", "--websearch-url", "http://127.0.0.1:1/search", "swift"])
    #expect(failed.status == 1)
    #expect(failed.stderr.contains("http://127.0.0.1:1/search"), "\(failed.stderr)")
    #expect(!failed.stderr.contains("--server"), "\(failed.stderr)")
  }

  @Test func theSkillHelpExamplesRun() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let help = try await run(["help", "skill"])
    let examples = help.stdout.split(separator: "\n").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    .filter { $0.hasPrefix("susi skill ") }
    #expect(examples.count == 2)
    for example in examples {
      let ran = try await SusiBinary(path: "/bin/sh").run(
        [
          "-c",
          "\"$SUSI\" " + example.dropFirst("susi ".count) + " --state-dir '\(folder.path)/state'",
        ],
        environment: environment(["SUSI": susi.path]))
      #expect(ran.status == 0, "\(example): \(ran.stderr)")
    }
  }
}
