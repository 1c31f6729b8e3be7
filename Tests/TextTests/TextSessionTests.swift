import Foundation
import SusiClock
import SusiCore
import SusiStore
import SusiTesting
import Synchronization
import Testing

@testable import SusiText

/// Command flows against a real store and a scripted runner standing in for the server.
@Suite struct TextSessionTests {
  static let coin = Skill(
    tag: "Flip a coin", group: "Games, Trivia and Accessories", name: "Flip a coin",
    description: "Ask SUSI to flip a coin for you", author: "Madhav Rathi",
    examples: ["flip a coin"],
    rating: RatingAggregate(fiveStar: 2, average: 5, total: 2))
  static let jokes = [
    Skill(tag: "joke", group: "Novelty and Humour", name: "Joke", description: "Jokes"),
    Skill(tag: "joke", group: "Knowledge", name: "Science joke", description: "Nerdy jokes"),
  ]
  static let allSkills = [coin] + jokes

  /// A small SUSI server: what each effect comes back as.
  static func server(_ effect: Effect, _ cause: Int) -> Action? {
    switch effect {
    case .fetchGroups:
      return .groupsLoaded(
        Action.GroupsLoaded(groups: [
          "Games, Trivia and Accessories", "Knowledge", "Novelty and Humour",
        ]))
    case .fetchSkills(_, let group, _):
      return .skillsLoaded(
        Action.SkillsLoaded(
          group: group, skills: allSkills.filter { group == nil || $0.group == group }))
    case .fetchSkill(_, let group, let tag, _):
      guard let skill = allSkills.first(where: { $0.group == group && $0.tag == tag }) else {
        return nil
      }
      return .skillLoaded(Action.SkillLoaded(skill: skill))
    case .chat(_, let query, _):
      switch query {
      case "search swift":
        return .messageReceived(
          Action.MessageReceived(
            query: query,
            answers: [
              .answer(expression: "Here is what I found:", language: nil, mood: nil),
              .websearch(query: "swift", count: 1),
            ]))
      case "later":
        return .messageReceived(
          Action.MessageReceived(
            query: query, answers: [.answer(expression: "now", language: nil, mood: nil)],
            planned: [
              PlannedAnswer(
                delayMilliseconds: 10,
                answers: [.answer(expression: "later!", language: nil, mood: nil)])
            ]))
      case "hang": return nil
      case "slow":
        return .requestFailed(
          Action.RequestFailed(
            cause: cause,
            error: RequestError(
              kind: .timeout,
              message:
                "http://127.0.0.1:4000/susi/chat.json did not answer in time; try again later"
            )))
      case "fail":
        return .requestFailed(
          Action.RequestFailed(
            cause: cause,
            error: RequestError(kind: .http, status: 503, message: "Service Unavailable")))
      default:
        return .messageReceived(
          Action.MessageReceived(
            query: query, answers: [.answer(expression: "Hi! I'm SUSI", language: nil, mood: nil)]))
      }
    case .webSearch(let query):
      return .websearchLoaded(
        Action.WebsearchLoaded(
          query: query,
          results: [
            SearchResult(title: "Swift", description: "A language", link: "https://swift.org"),
            SearchResult(title: "Taylor Swift", link: "https://example.org/taylor"),
          ]))
    case .login(_, let email, let password, _):
      guard password.reveal() == "secret" else {
        return .loginFailed(
          Action.LoginFailed(
            email: email,
            error: RequestError(kind: .http, status: 422, message: "Invalid credentials")))
      }
      return .loggedIn(Action.LoggedIn(email: email, expiresAt: nil))
    case .rateSkill(_, let group, let skill, _, let stars):
      return .ratingSubmitted(
        Action.RatingSubmitted(
          group: group, skill: skill, stars: stars,
          ratings: RatingAggregate(fiveStar: 3, average: 5, total: 3)))
    case .fetchUserRating(_, let group, let skill, _):
      return .userRatingLoaded(Action.UserRatingLoaded(group: group, skill: skill, stars: 4))
    case .storeSettings(_, let settings):
      return .settingsChanged(Action.SettingsChanged(settings: settings))
    case .fetchSettings:
      return .settingsSynced(Action.SettingsSynced(settings: ["theme": .string("dark")]))
    case .logout:
      return .loggedOut(Action.LoggedOut())
    default:
      return nil
    }
  }

  /// A session on a fresh store whose runner answers with `server`.
  struct Harness {
    let runner = TextScriptedRunner(TextSessionTests.server)
    let sink = MemoryEventSink()
    let capture = TextCapture()
    let terminated = Terminations()
    let store: Store
    let session: TextSession
    let lines: TextScriptedLines

    init(
      lines: [String] = [], hold: Bool = false, mode: TextSession.Mode = .shell,
      passwordFile: String? = nil, recovered: Recovered = Recovered(), wait: Bool = false,
      resumedPlans: [ResumedPlan] = [], interactive: Bool = false
    ) async {
      store = Store(sink: sink, runner: runner, clock: ManualTimeSource(), recovered: recovered)
      self.lines = TextScriptedLines(lines, hold: hold)
      let terminated = self.terminated
      var context = TextContext(
        logPath: "events.jsonl", embeddedServerURL: "http://127.0.0.1:4000",
        passwordFile: passwordFile,
        terminate: { code in terminated.codes.withLock { $0.append(code) } })
      context.now = { ManualTimeSource().now() }
      context.waitForPlanned = wait
      context.resumedPlans = resumedPlans
      session = await TextSession(
        store: store, console: capture.console(interactive: interactive), input: self.lines,
        context: context, mode: mode)
    }

    var logText: String {
      sink.lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
    }
  }

  @Test func askPrintsTheAnswer() async {
    let h = await Harness()
    #expect(await h.session.run(.init("ask", "hello")) == .ok)
    #expect(h.capture.output == "Hi! I'm SUSI\n")
    #expect(h.capture.error == "")
  }

  @Test func websearchInAnAnswerSearchesAndPrintsCards() async {
    let h = await Harness()
    #expect(await h.session.run(.init("ask", "search swift")) == .ok)
    #expect(
      h.capture.output
        == "Here is what I found:\nWeb search: swift\n1. Swift\n   A language\n   https://swift.org\n"
    )
    #expect(h.runner.effects.contains(.webSearch(query: "swift")))
  }

  @Test func unknownSkillNameLoadsAllSkillsOnceThenShowsThePage() async {
    let h = await Harness()
    #expect(await h.session.run(.init("skill", "flip a coin")) == .ok)
    #expect(
      h.capture.output.hasPrefix(
        "Flip a coin\nGames, Trivia and Accessories · en · by Madhav Rathi\n"))
    #expect(h.capture.output.contains("Try it: susi ask \"flip a coin\""))
    #expect(await h.session.run(.init("skill", "no such skill")) == .failed)
    #expect(await h.session.run(.init("skill", "flip a con")) == .failed)
    let loadsOfAll = h.runner.effects.filter {
      if case .fetchSkills(_, nil, _) = $0 { true } else { false }
    }
    #expect(loadsOfAll.count == 1)
    #expect(
      h.capture.error
        == "susi: no skill named 'no such skill'\nsusi: no skill named 'flip a con'; did you mean 'Flip a coin'?\n"
    )
  }

  @Test func ambiguousSkillNameListsTheCandidates() async {
    let h = await Harness()
    #expect(await h.session.run(.init("skill", "joke")) == .failed)
    #expect(
      h.capture.error.contains(
        "'joke' names 2 skills: Knowledge/joke, Novelty and Humour/joke; say which one"))
    #expect(await h.session.run(.init("skill", "Knowledge/joke")) == .ok)
    #expect(h.capture.output.hasPrefix("Science joke\n"))
  }

  @Test func ratingNeedsALogin() async {
    let h = await Harness()
    #expect(await h.session.run(.init("rate", "Flip a coin", stars: 5)) == .failed)
    #expect(h.capture.error.hasSuffix("susi: log in first to rate skills (susi login EMAIL)\n"))
  }

  @Test func loginReadsThePasswordFromTheNextLineAndKeepsItOutOfTheLog() async {
    let h = await Harness(lines: ["secret"])
    #expect(await h.session.run(.init("login", "me@example.org")) == .ok)
    #expect(h.capture.output == "Logged in as me@example.org.\n")
    #expect(!h.logText.contains("secret"))
    #expect(h.logText.contains("[redacted]"))
    #expect(await h.session.run(.init("rate", "Flip a coin", stars: 5)) == .ok)
    #expect(
      h.capture.output.hasSuffix("You rated Flip a coin ★★★★★ 5.\nNow: ★★★★★ 5.0 (3 ratings)\n"))
    #expect(await h.session.run(.init("myrating", "flip a coin")) == .ok)
    #expect(h.capture.output.hasSuffix("Your rating of Flip a coin: ★★★★☆ 4\n"))
  }

  @Test func loginReadsThePasswordFile() async throws {
    let folder = FileManagerTestFolder()
    let path = try folder.write("password", "secret\n")
    let h = await Harness(passwordFile: path)
    #expect(await h.session.run(.init("login", "me@example.org")) == .ok)
    let wrong = await Harness(passwordFile: try folder.write("wrong", "nope"))
    #expect(await wrong.session.run(.init("login", "me@example.org")) == .failed)
    #expect(wrong.capture.error == "susi: login failed: Invalid credentials (HTTP 422)\n")
  }

  @Test func loginWithoutAPasswordSendsNothing() async {
    let h = await Harness(lines: [])
    #expect(await h.session.run(.init("login", "me@example.org")) == .usage)
    #expect(h.capture.error.contains("no password given"))
    #expect(!h.runner.effects.contains { if case .login = $0 { true } else { false } })
  }

  @Test func aTimeoutIsReportedOnce() async {
    let h = await Harness()
    #expect(await h.session.run(.init("ask", "slow")) == .failed)
    #expect(
      h.capture.error
        == "susi: asking SUSI failed: http://127.0.0.1:4000/susi/chat.json did not answer in time; "
        + "try again later\n")
  }

  @Test func failedRequestsSayWhatFailedAndWhy() async {
    let h = await Harness()
    #expect(await h.session.run(.init("ask", "fail")) == .failed)
    #expect(h.capture.error == "susi: asking SUSI failed: Service Unavailable (HTTP 503)\n")
  }

  @Test func settingsChangeSyncAndShow() async {
    let h = await Harness(lines: ["secret"])
    _ = await h.session.run(.init("login", "me@example.org"))
    #expect(await h.session.run(.init("set", "light", key: "THEME")) == .ok)
    #expect(await h.session.run(.init("set", "maybe", key: "micInput")) == .usage)
    #expect(h.capture.error == "susi: setting 'micInput' takes true or false\n")
    #expect(await h.session.run(.init("sync")) == .ok)
    #expect(await h.session.run(.init("settings")) == .ok)
    #expect(h.capture.output.hasSuffix("theme  light\ntheme  dark\ntheme  dark\n"))
  }

  @Test func interruptCancelsTheRequestBeingWaitedFor() async {
    let h = await Harness()
    let asking = Task { await h.session.run(.init("ask", "hang")) }
    await waitUntil("a request in flight") { await !h.store.state.inFlight.isEmpty }
    await h.session.interrupt()
    #expect(await asking.value == .interrupted)
    #expect(h.capture.error.hasSuffix("susi: asking SUSI was cancelled\n"))
    #expect(h.runner.effects.contains(.cancel(seq: 1)))
    #expect(h.terminated.codes.withLock { $0 }.isEmpty)
  }

  @Test func secondInterruptLeavesWith130() async {
    let h = await Harness()
    let asking = Task { await h.session.run(.init("ask", "hang")) }
    await waitUntil("a request in flight") { await !h.store.state.inFlight.isEmpty }
    await h.session.interrupt()
    await h.session.interrupt()
    #expect(h.terminated.codes.withLock { $0 } == [130])
    _ = await asking.value
  }

  @Test func interruptAtAPasswordPromptCancelsTheLogin() async {
    let h = await Harness(hold: true)
    let login = Task { await h.session.run(.init("login", "me@example.org")) }
    await waitUntil("the password prompt") { await h.session.waitingForSecret }
    await h.session.interrupt()
    #expect(await login.value == .interrupted)
    #expect(!h.runner.effects.contains { if case .login = $0 { true } else { false } })
  }

  @Test func pipedChatAnswersEachLineAndSaysWhenAPlannedAnswerIsDue() async {
    let h = await Harness(lines: ["hello", "later", "/skills Knowledge"], mode: .chat)
    #expect(await h.session.chat() == 0)
    #expect(h.capture.output.hasPrefix("Hi! I'm SUSI\nnow\n"))
    #expect(h.capture.output.contains("Knowledge (1)\n  Science joke  Nerdy jokes\n"))
    #expect(
      h.capture.error
        == "SUSI planned another answer, due at 10:00 UTC (now). It stays pending: a susi "
        + "running then (a chat) shows it, or else the next one started after that time; or "
        + "wait for it with --wait.\n")
  }

  @Test func pipedChatWithWaitWaitsForPlannedAnswers() async {
    let h = await Harness(lines: ["later"], mode: .chat, wait: true)
    #expect(await h.session.chat() == 0)
    #expect(h.capture.output == "now\nlater!\n")
    #expect(h.capture.error.contains("waiting for it"))
  }

  @Test func askSaysWhenItsPlannedAnswerIsDueInTheLocalZone() async {
    let h = await Harness()
    var renderer = TextRenderer()
    renderer.timeZone = TimeZone(identifier: "Asia/Kolkata")!
    #expect(
      renderer.dueText(
        Timestamp(milliseconds: 1_795_255_200_000 + 1_800_000), now: ManualTimeSource().now())
        == "at 16:00 (in 30 min 00 s)")
    #expect(await h.session.run(.init("ask", "later")) == .ok)
    #expect(h.capture.error.hasPrefix("SUSI planned another answer, due at 10:00 UTC"))
  }

  @Test func saysWhatStartUpDidWithPlannedAnswersOfAnEarlierRun() async {
    let now = ManualTimeSource().now()
    let plans = [
      ResumedPlan(
        seq: 2, query: "remind me to drink water", due: now.adding(milliseconds: -600_000),
        fate: .deliveredLate),
      ResumedPlan(
        seq: 4, query: "remind me to stretch", due: now.adding(milliseconds: -13 * 3_600_000),
        fate: .dropped),
      ResumedPlan(
        seq: 6, query: "set a timer", due: now.adding(milliseconds: 120_000), fate: .rescheduled),
    ]
    let shell = await Harness(resumedPlans: plans)
    await shell.session.announceResumedPlans()
    #expect(
      shell.capture.error
        == "A planned answer to \"remind me to drink water\" was due at 09:50 UTC (10 min 00 s ago), "
        + "while susi was not running; here it is, late:\n"
        + "A planned answer to \"remind me to stretch\" was due at 2026-11-20 21:00 UTC "
        + "(13 h 0 min ago), more than 12 hours ago while susi was not running; dropped.\n")
    let chat = await Harness(mode: .chat, resumedPlans: plans, interactive: true)
    await chat.session.announceResumedPlans()
    #expect(
      chat.capture.error.hasSuffix(
        "A planned answer to \"set a timer\" from an earlier run is due at 10:02 UTC (in 2 min 00 s); "
          + "it is shown here when it arrives.\n"))
  }

  @Test func leavingAnInteractiveChatSaysWhichPlannedAnswersAreKept() async {
    var state = State()
    let now = ManualTimeSource().now()
    state.inFlight[1] = InFlightRequest(
      type: "plannedAnswer", since: now, due: now.adding(milliseconds: 1_800_000))
    let h = await Harness(
      mode: .chat, recovered: Recovered(state: state, lastSeq: 1), interactive: true)
    #expect(await h.session.chat() == 0)
    #expect(
      h.capture.error.hasSuffix(
        "1 planned answer is kept (due at 10:30 UTC (in 30 min 00 s)): a susi running then "
          + "shows it, or else the next one started after that time.\n"))
  }

  @Test func plannedAnswersOfAnEarlierRunWithoutADueTimeAreNotWaitedFor() async {
    var state = State()
    state.inFlight[1] = InFlightRequest(type: "plannedAnswer", since: ManualTimeSource().now())
    let h = await Harness(
      lines: ["hello"], mode: .chat, recovered: Recovered(state: state, lastSeq: 1))
    #expect(await h.session.chat() == 0)
    #expect(h.capture.output == "Hi! I'm SUSI\n")
  }

  @Test func pipedChatExitsWithOneWhenALineFailed() async {
    let h = await Harness(lines: ["/rate Flip a coin 5", "hello", "/skils"], mode: .chat)
    #expect(await h.session.chat() == 1)
    #expect(h.capture.output == "Hi! I'm SUSI\n")
    #expect(h.capture.error.contains("log in first to rate skills (/login EMAIL)"))
    #expect(
      h.capture.error.hasSuffix(
        "susi: unknown command '/skils'; did you mean '/skills'? (/help lists the commands)\n"))
  }

  @Test func quitEndsTheChatBeforeTheRestOfTheInput() async {
    let h = await Harness(lines: ["/quit", "hello"], mode: .chat)
    #expect(await h.session.chat() == 0)
    #expect(h.capture.output == "")
  }

  @Test func groupNamesMatchIgnoringCase() async {
    let h = await Harness()
    #expect(await h.session.run(.init("skills", "knowledge")) == .ok)
    #expect(await h.session.run(.init("skills", "nothing")) == .failed)
    #expect(h.capture.error == "susi: no skill group named 'nothing'; susi groups lists them\n")
  }
}

/// The exit codes a session asked to terminate with.
final class Terminations: Sendable {
  let codes = Mutex<[Int32]>([])
}
