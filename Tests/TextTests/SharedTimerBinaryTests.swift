import Foundation
import SusiHTTPTesting
import SusiJSON
import SusiTesting
import Testing

/// Timers across terminals, through the built `susi`: two and three processes on one log, with
/// timers falling due before, while and after each runs. Every process on the log waits for
/// every planned answer; exactly one delivers it; a chat open anywhere shows it; and no process
/// waits for another's timer. Timers are short and every wait is on a condition.
@Suite struct SharedTimerBinaryTests {
  let susi: SusiBinary
  let folder = FileManagerTestFolder()

  init() throws {
    susi = try SusiBinary.built()
  }

  var isolation: [String] { ["--state-dir", folder.path + "/state", "--fsync", "never"] }
  var environment: [String: String] { SusiBinary.isolatedEnvironment(folder.path) }

  /// Runs `susi ARGUMENTS` to its end; killed (and so failing) after `timeout` seconds.
  func run(_ arguments: [String], input: String = "", timeout: Double = 60) async throws
    -> SusiProcess.Output
  {
    try await susi.run(
      arguments + isolation, input: input, environment: environment, timeout: timeout)
  }

  /// Starts a chat fed through a pipe (as `sleep 40 | susi` would), and waits until it has
  /// answered a first line: it then holds the log and follows it.
  func startChat() async throws -> SusiProcess {
    let chat = try susi.start(isolation, environment: environment)
    chat.send("hello\n")
    let ready = await onThread { chat.waitFor(timeout: 60) { $0.output.contains("\n") } }
    #expect(ready, "the chat answered its first line: \(chat.seen)")
    return chat
  }

  /// Starts `susi jsonl` and waits until it has answered a first line.
  func startJSONLines() async throws -> SusiProcess {
    let jsonl = try susi.start(["jsonl"] + isolation, environment: environment)
    jsonl.send(#"{"type":"loadGroups","payload":{},"id":"ready"}"# + "\n")
    let ready = await onThread {
      jsonl.waitFor(timeout: 60) { $0.output.contains(#""type":"groupsLoaded""#) }
    }
    #expect(ready, "susi jsonl answered its first line: \(jsonl.seen)")
    return jsonl
  }

  /// The events of the log.
  var events: [JSON] {
    let text =
      (try? String(contentsOfFile: folder.path + "/state/events.jsonl", encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
  }

  /// The log's deliveries of the answer `text` (results of a planned answer).
  func deliveries(_ text: String) -> [JSON] {
    events.filter {
      $0["type"] == "messageReceived" && $0["cause"] != nil
        && ($0["payload"]?["answers"]?.array?.contains { $0["expression"]?.string == text } ?? false)
    }
  }

  /// Waits until the planned answer in the log (the first one) is due, by the log's own times.
  func waitUntilDue() async {
    await waitUntil("the planned answer to be due") {
      guard
        let planner = events.first(where: {
          $0["type"] == "messageReceived" && $0["payload"]?["planned"] != nil
        }),
        let at = planner["at"]?.string,
        let date = ISO8601DateFormatter.withFractions.date(from: at),
        let delay = planner["payload"]?["planned"]?.array?.first?["delay"]?.int
      else { return false }
      return Date() > date.addingTimeInterval(Double(delay) / 1000 + 0.05)
    }
  }

  /// Ends a chat with `/quit`; its exit status (it must not hang).
  func quit(_ chat: SusiProcess) async -> SusiProcess.Output {
    chat.send("/quit\n")
    chat.closeInput()
    return await onThread { chat.waitForExit(timeout: 30) }
  }

  @Test func theSixLineReproductionExitsAtOnceAndTheChatShowsTheTimer() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let chat = try await startChat()
    defer { chat.stop() }
    let timer = try await run(["ask", "set a timer for 2 seconds"], timeout: 15)
    #expect(timer.status == 0 && !timer.signalled, "set a timer: \(timer.stderr)")
    #expect(timer.stdout == "Timer set for 2 seconds.\n")
    #expect(timer.stderr.contains("a susi running then (a chat) shows it"))
    // The chat in the other terminal shows it when it comes due.
    let shown = await onThread {
      chat.waitFor(timeout: 30) { $0.output.contains("Your 2 second timer is done.") }
    }
    #expect(shown, "the chat showed the timer: \(chat.seen)")
    let coin = try await run(["ask", "flip a coin"], timeout: 15)
    #expect(coin.status == 0 && !coin.signalled, "flip a coin exited by itself: \(coin.stderr)")
    #expect(["heads\n", "tails\n"].contains(coin.stdout), "\(coin.stdout)")
    #expect(!coin.stdout.contains("timer is done"), "the timer is shown once, by the chat")
    let ended = await quit(chat)
    #expect(ended.status == 0 && !ended.signalled, "the chat left on /quit: \(ended.stderr)")
    #expect(deliveries("Your 2 second timer is done.").count == 1)
    #expect(!ended.stderr.contains("while susi was not running"))
  }

  @Test func aOneShotStartedWhileAnotherProcesssTimerIsPendingExitsAfterItsOwnAnswer()
    async throws
  {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let chat = try await startChat()
    defer { chat.stop() }
    let timer = try await run(["ask", "set a timer for 3 seconds"], timeout: 15)
    #expect(timer.status == 0)
    // Pending, not due: a one-shot beside the chat exits after its own answer, without
    // waiting for the timer (on a machine slow enough for it to come due meanwhile, it may
    // show it, delivered by itself or by the chat, but still exits on its own).
    let coin = try await run(["ask", "flip a coin"], timeout: 15)
    #expect(coin.status == 0 && !coin.signalled, "\(coin.stderr)")
    // Its own answer is there, whether or not the timer came due before it.
    let lines = coin.stdout.split(separator: "\n")
    #expect(lines.contains("heads") || lines.contains("tails"), "\(coin.stdout)")
    let shown = await onThread {
      chat.waitFor(timeout: 30) { $0.output.contains("Your 3 second timer is done.") }
    }
    #expect(shown, "the chat showed the timer: \(chat.seen)")
    let ended = await quit(chat)
    #expect(ended.status == 0 && !ended.signalled)
    #expect(deliveries("Your 3 second timer is done.").count == 1)
  }

  @Test func threeProcessesOnOneLogDeliverATimerOnceAndBothFollowersSeeIt() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let chat = try await startChat()
    defer { chat.stop() }
    let jsonl = try await startJSONLines()
    defer { jsonl.stop() }
    let timer = try await run(["ask", "set a timer for 1 seconds"], timeout: 15)
    #expect(timer.status == 0)
    let shown = await onThread {
      chat.waitFor(timeout: 30) { $0.output.contains("Your 1 second timer is done.") }
    }
    #expect(shown, "the chat showed the timer: \(chat.seen)")
    // Once in the answer that planned it, once in its delivery.
    let followed = await onThread {
      jsonl.waitFor(timeout: 30) {
        $0.output.components(separatedBy: "Your 1 second timer is done.").count == 3
      }
    }
    #expect(followed, "susi jsonl wrote the delivery: \(jsonl.seen)")
    jsonl.closeInput()
    let jsonlEnd = await onThread { jsonl.waitForExit(timeout: 30) }
    #expect(jsonlEnd.status == 0 && !jsonlEnd.signalled)
    let ended = await quit(chat)
    #expect(ended.status == 0 && !ended.signalled)
    #expect(deliveries("Your 1 second timer is done.").count == 1)
    let verified = try await susi.run(
      ["replay", "--verify", folder.path + "/state/events.jsonl"], environment: environment)
    #expect(verified.status == 0, "the shared log replays cleanly: \(verified.stderr)")
  }

  @Test func aTimerDueAfterEveryProcessLeftIsShownLateByTheNextStart() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let timer = try await run(["ask", "set a timer for 2 seconds"], timeout: 15)
    #expect(timer.status == 0)
    // A chat that runs and leaves while it is pending: it neither waits for it nor shows it
    // (on a machine slow enough for it to come due meanwhile, the chat shows it instead).
    let early = try await run([], input: "/quit\n", timeout: 15)
    #expect(early.status == 0 && !early.signalled)
    await waitUntilDue()
    // Due while no susi ran: the next start, alone, shows it late and says so.
    let next = try await run(["groups"], timeout: 15)
    #expect(next.status == 0 && !next.signalled, "\(next.stderr)")
    if !early.stdout.contains("Your 2 second timer is done.") {
      #expect(next.stdout.hasPrefix("Your 2 second timer is done.\n"), "\(next.stdout)")
      #expect(next.stderr.contains("while susi was not running; here it is, late:"))
    }
    #expect(deliveries("Your 2 second timer is done.").count == 1)
  }

  @Test func aTimerDueBeforeAChatStartsBesideAnotherSusiIsShownWithoutSayingNoneRan()
    async throws
  {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    // A susi that follows the log but shows nothing itself: it delivers the timer when due.
    let jsonl = try await startJSONLines()
    defer { jsonl.stop() }
    let timer = try await run(["ask", "set a timer for 1 seconds"], timeout: 15)
    #expect(timer.status == 0)
    await waitUntil("the timer to be delivered") {
      deliveries("Your 1 second timer is done.").count == 1
    }
    // Already delivered: a start after that has nothing late to show.
    let next = try await run(["groups"], timeout: 15)
    #expect(next.status == 0 && !next.signalled)
    #expect(!next.stdout.contains("timer is done"))
    #expect(!next.stderr.contains("not running"))
    jsonl.closeInput()
    #expect(await onThread { jsonl.waitForExit(timeout: 30).status } == 0)
    #expect(deliveries("Your 1 second timer is done.").count == 1)
  }

  @Test func jsonLinesAtTheEndOfInputWaitsForAnswersNowNotForPlannedOnes() async throws {
    defer { try? FileManager.default.removeItem(atPath: folder.path) }
    let reminder = #"{"type":"sendMessage","payload":{"query":"remind me to drink water"}}"#
    // The default drain timeout is 30 s: a run that waited for the reminder would be killed.
    let ran = try await run(["jsonl"], input: reminder + "\n", timeout: 20)
    #expect(ran.status == 0 && !ran.signalled, "\(ran.stderr)")
    #expect(ran.stdout.contains("I will remind you in 30 minutes."))
    // The reminder stays pending in the log.
    let replayed = try await susi.run(
      ["replay", folder.path + "/state/events.jsonl", "--json"], environment: environment,
      timeout: 15)
    let inFlight = try JSONParser.parse(replayed.stdout)["inFlight"]?.object
    #expect(inFlight?.filter { $0.value["due"]?.string != nil }.count == 1, "\(replayed.stderr)")
    // --no-wait still writes what has already arrived by the end of input.
    let noWait = try await run(
      ["jsonl", "--no-wait"], input: #"{"type":"loadGroups","payload":{}}"# + "\n", timeout: 20)
    #expect(noWait.status == 0)
    #expect(noWait.stdout.contains(#""type":"loadGroups""#))
  }
}

extension ISO8601DateFormatter {
  /// Reads the log's times (`2026-11-26T07:46:35.123Z`).
  fileprivate static var withFractions: ISO8601DateFormatter {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter
  }
}
