import SusiCore
import SusiCoreTesting
import Testing

@Suite struct ChatReducerTests {
  private static let anonymousReason =
    "the server answered as if nobody were logged in; the session of ada@example.org has ended"

  @Test func sendMessageAddsTheQueryToTheTranscriptAndAsks() {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .sendMessage(.init(query: "  hello SUSI \n")),
      {
        $0.transcript = [ChatEntry(seq: 1, at: at, speaker: .user, query: "hello SUSI")]
        $0.inFlight[1] = InFlightRequest(type: "sendMessage", since: at)
      },
      effects: [.chat(server: "embedded", query: "hello SUSI", language: nil)])
  }

  @Test func sendMessageUsesTheLanguageAskedThenThePreferredOne() {
    var t = ReducerTester()
    let at = t.now
    t.prepare { $0.settings["prefLanguage"] = .string("de") }
    t.send(
      .sendMessage(.init(query: "bonjour", language: "fr")),
      {
        $0.transcript.append(ChatEntry(seq: 1, at: at, speaker: .user, query: "bonjour"))
        $0.inFlight[1] = InFlightRequest(type: "sendMessage", since: at)
      },
      effects: [.chat(server: "embedded", query: "bonjour", language: "fr")])
    t.send(
      .sendMessage(.init(query: "hallo")),
      {
        $0.transcript.append(ChatEntry(seq: 2, at: at, speaker: .user, query: "hallo"))
        $0.inFlight[2] = InFlightRequest(type: "sendMessage", since: at)
      },
      effects: [.chat(server: "embedded", query: "hallo", language: "de")])
  }

  @Test(arguments: ["", " ", "\n\t "])
  func rejectsAnEmptyQuery(query: String) {
    var t = ReducerTester()
    t.prepare { $0 = Fixture.populated() }
    t.send(.sendMessage(.init(query: query)), rejected: "the query is empty")
  }

  @Test func rejectsAQueryLongerThan4000Characters() {
    var t = ReducerTester()
    t.send(
      .sendMessage(.init(query: String(repeating: "a", count: 4001))),
      rejected: "the query is longer than 4000 characters")
  }

  @Test func acceptsAQueryOf4000CharactersWhateverItsBytes() {
    var t = ReducerTester()
    let at = t.now
    let query = String(repeating: "😀", count: 4000)
    t.send(
      .sendMessage(.init(query: " \(query) ")),
      {
        $0.transcript = [ChatEntry(seq: 1, at: at, speaker: .user, query: query)]
        $0.inFlight[1] = InFlightRequest(type: "sendMessage", since: at)
      },
      effects: [.chat(server: "embedded", query: query, language: nil)])
  }

  @Test func messageReceivedAddsTheAnswerAndCompletesTheQuery() {
    var t = ReducerTester()
    let asked = t.now
    t.prepare { $0.lastErrors = ["sendMessage": Fixture.error()] }
    let seq = t.send(
      .sendMessage(.init(query: "hi")),
      {
        $0.transcript = [ChatEntry(seq: 1, at: asked, speaker: .user, query: "hi")]
        $0.inFlight[1] = InFlightRequest(type: "sendMessage", since: asked)
      },
      effects: [.chat(server: "embedded", query: "hi", language: nil)])
    t.advance(by: 300)
    let answered = t.now
    let answers = [Fixture.answer("Hello!"), .anchor(link: "https://susi.ai", text: "SUSI")]
    t.receive(
      .messageReceived(
        .init(query: "hi", answers: answers, skill: "/general/Small Talk/en/hi.txt")), cause: seq
    ) {
      $0.transcript.append(
        ChatEntry(
          seq: 2, at: answered, speaker: .susi, query: "hi", answers: answers,
          skill: "/general/Small Talk/en/hi.txt"))
      $0.inFlight = [:]
      $0.lastErrors = [:]
    }
  }

  @Test func messageReceivedDoesNotCompleteARequestOfAnotherType() {
    var t = ReducerTester()
    let at = t.now
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: "search", since: Fixture.t0, key: "search:hi")
    }
    t.receive(.messageReceived(.init(query: "hi", answers: [Fixture.answer("yo")])), cause: 1) {
      $0.transcript = [
        ChatEntry(seq: 1, at: at, speaker: .susi, query: "hi", answers: [Fixture.answer("yo")])
      ]
    }
  }

  @Test func sendMessagesAreNeverSuperseded() {
    var t = ReducerTester()
    let at = t.now
    for seq in 1...3 {
      t.send(
        .sendMessage(.init(query: "same")),
        {
          $0.transcript.append(ChatEntry(seq: seq, at: at, speaker: .user, query: "same"))
          $0.inFlight[seq] = InFlightRequest(type: "sendMessage", since: at)
        },
        effects: [.chat(server: "embedded", query: "same", language: nil)])
    }
  }

  // MARK: anonymous replies

  @Test func anAnonymousReplyWhileLoggedInAsksToLogOut() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare { $0.inFlight[1] = InFlightRequest(type: "sendMessage", since: Fixture.t0) }
    // The session itself ends only when the logout comes back as `loggedOut`.
    t.receive(
      .messageReceived(.init(query: "hi", answers: [Fixture.answer("hello")], anonymous: true)),
      cause: 1,
      {
        $0.transcript = [
          ChatEntry(seq: 1, at: at, speaker: .susi, query: "hi", answers: [Fixture.answer("hello")])
        ]
        $0.inFlight = [:]
      },
      effects: [.logout(server: "embedded", reason: Self.anonymousReason)])
  }

  @Test func anAnonymousReplyWhileLoggedOutAsksNothing() {
    var t = ReducerTester()
    let at = t.now
    t.receive(.messageReceived(.init(query: "hi", answers: [], anonymous: true)), cause: nil) {
      $0.transcript = [ChatEntry(seq: 1, at: at, speaker: .susi, query: "hi")]
    }
  }

  @Test(arguments: [false, nil] as [Bool?])
  func aReplyNotMarkedAnonymousKeepsTheSession(anonymous: Bool?) {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.receive(.messageReceived(.init(query: "hi", answers: [], anonymous: anonymous)), cause: nil) {
      $0.transcript = [ChatEntry(seq: 1, at: at, speaker: .susi, query: "hi")]
    }
  }

  // MARK: planned answers

  @Test func plannedAnswersAreDeliveredOneAfterAnother() {
    var t = ReducerTester()
    let first = [Fixture.answer("Timer set")]
    let second = [Fixture.answer("One minute left")]
    let third = [Fixture.answer("Time is up")]
    let skill = "/general/Timer/en/timer.txt"
    t.prepare { $0.inFlight[1] = InFlightRequest(type: "sendMessage", since: Fixture.t0) }

    let t1 = t.now
    let seq1 = t.receive(
      .messageReceived(
        .init(
          query: "timer", answers: first, skill: skill,
          planned: [
            PlannedAnswer(delayMilliseconds: 2000, answers: second),
            PlannedAnswer(delayMilliseconds: 5000, answers: third),
          ])),
      cause: 1,
      {
        $0.transcript = [
          ChatEntry(seq: 1, at: t1, speaker: .susi, query: "timer", answers: first, skill: skill)
        ]
        $0.inFlight = [
          1: InFlightRequest(
            type: "plannedAnswer", since: t1, due: t1.adding(milliseconds: 2000),
            plan: [
              PlannedAnswer(delayMilliseconds: 2000, answers: second),
              PlannedAnswer(delayMilliseconds: 3000, answers: third),
            ])
        ]
      },
      // The delivery carries its own answers only: the rest stays in the wait's plan.
      effects: [
        .deliverLater(
          delayMilliseconds: 2000, message: .init(query: "timer", answers: second, skill: skill))
      ])

    t.advance(by: 2000)
    let t2 = t.now
    let seq2 = t.receive(
      .messageReceived(.init(query: "timer", answers: second, skill: skill)),
      cause: seq1,
      {
        $0.transcript.append(
          ChatEntry(seq: 2, at: t2, speaker: .susi, query: "timer", answers: second, skill: skill))
        $0.inFlight = [
          2: InFlightRequest(
            type: "plannedAnswer", since: t2, due: t2.adding(milliseconds: 3000),
            plan: [PlannedAnswer(delayMilliseconds: 3000, answers: third)])
        ]
      },
      effects: [
        .deliverLater(
          delayMilliseconds: 3000, message: .init(query: "timer", answers: third, skill: skill))
      ])

    t.advance(by: 3000)
    let t3 = t.now
    t.receive(.messageReceived(.init(query: "timer", answers: third, skill: skill)), cause: seq2) {
      $0.transcript.append(
        ChatEntry(seq: 3, at: t3, speaker: .susi, query: "timer", answers: third, skill: skill))
      $0.inFlight = [:]
    }
  }

  @Test func aDeliveryLoggedWithTheRestOfThePlanReplaysToTheSameState() {
    // Logs written before deliveries left the rest of the plan out carry it in each delivery.
    var t = ReducerTester()
    let first = [Fixture.answer("first")]
    let second = [Fixture.answer("second")]
    let t1 = t.now
    let seq1 = t.receive(
      .messageReceived(
        .init(
          query: "q", answers: [],
          planned: [
            PlannedAnswer(delayMilliseconds: 1000, answers: first),
            PlannedAnswer(delayMilliseconds: 4000, answers: second),
          ])),
      cause: nil,
      {
        $0.transcript = [ChatEntry(seq: 1, at: t1, speaker: .susi, query: "q")]
        $0.inFlight[1] = InFlightRequest(
          type: "plannedAnswer", since: t1, due: t1.adding(milliseconds: 1000),
          plan: [
            PlannedAnswer(delayMilliseconds: 1000, answers: first),
            PlannedAnswer(delayMilliseconds: 3000, answers: second),
          ])
      },
      effects: [.deliverLater(delayMilliseconds: 1000, message: .init(query: "q", answers: first))])
    t.advance(by: 1000)
    let t2 = t.now
    t.receive(
      .messageReceived(
        .init(
          query: "q", answers: first,
          planned: [PlannedAnswer(delayMilliseconds: 3000, answers: second)])),
      cause: seq1,
      {
        $0.transcript.append(ChatEntry(seq: 2, at: t2, speaker: .susi, query: "q", answers: first))
        $0.inFlight = [
          2: InFlightRequest(
            type: "plannedAnswer", since: t2, due: t2.adding(milliseconds: 3000),
            plan: [PlannedAnswer(delayMilliseconds: 3000, answers: second)])
        ]
      },
      effects: [.deliverLater(delayMilliseconds: 3000, message: .init(query: "q", answers: second))]
    )
  }

  @Test func plannedDelaysNeverBecomeNegative() {
    var t = ReducerTester()
    let at = t.now
    let a = [Fixture.answer("a")]
    let b = [Fixture.answer("b")]
    let c = [Fixture.answer("c")]
    t.receive(
      .messageReceived(
        .init(
          query: "q", answers: [],
          planned: [
            PlannedAnswer(delayMilliseconds: -100, answers: a),
            PlannedAnswer(delayMilliseconds: -300, answers: b),
            PlannedAnswer(delayMilliseconds: 400, answers: c),
          ])),
      cause: nil,
      {
        $0.transcript = [ChatEntry(seq: 1, at: at, speaker: .susi, query: "q")]
        $0.inFlight[1] = InFlightRequest(
          type: "plannedAnswer", since: at, due: at.adding(milliseconds: 0),
          plan: [
            PlannedAnswer(delayMilliseconds: 0, answers: a),
            PlannedAnswer(delayMilliseconds: 0, answers: b),
            PlannedAnswer(delayMilliseconds: 400, answers: c),
          ])
      },
      effects: [.deliverLater(delayMilliseconds: 0, message: .init(query: "q", answers: a))])
  }

  @Test func anAnonymousReplyWithPlannedAnswersLogsOutThenSchedules() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    let later = [Fixture.answer("later")]
    t.receive(
      .messageReceived(
        .init(
          query: "q", answers: [Fixture.answer("now")],
          planned: [PlannedAnswer(delayMilliseconds: 10, answers: later)],
          anonymous: true)),
      cause: nil,
      {
        $0.transcript = [
          ChatEntry(seq: 1, at: at, speaker: .susi, query: "q", answers: [Fixture.answer("now")])
        ]
        $0.inFlight[1] = InFlightRequest(
          type: "plannedAnswer", since: at, due: at.adding(milliseconds: 10),
          plan: [PlannedAnswer(delayMilliseconds: 10, answers: later)])
      },
      effects: [
        .logout(server: "embedded", reason: Self.anonymousReason),
        .deliverLater(delayMilliseconds: 10, message: .init(query: "q", answers: later)),
      ])
  }

  @Test func aPlannedAnswerCanBeCancelled() {
    var t = ReducerTester()
    let at = t.now
    let seq = t.receive(
      .messageReceived(
        .init(
          query: "q", answers: [], planned: [PlannedAnswer(delayMilliseconds: 60_000, answers: [])])
      ),
      cause: nil,
      {
        $0.transcript = [ChatEntry(seq: 1, at: at, speaker: .susi, query: "q")]
        $0.inFlight[1] = InFlightRequest(
          type: "plannedAnswer", since: at, due: at.adding(milliseconds: 60_000),
          plan: [PlannedAnswer(delayMilliseconds: 60_000, answers: [])])
      },
      effects: [.deliverLater(delayMilliseconds: 60_000, message: .init(query: "q", answers: []))])
    t.send(.cancelRequest(.init(seq: seq)), effects: [.cancel(seq: seq)])
    t.receive(
      .requestFailed(
        .init(cause: seq, error: RequestError(kind: .cancelled, message: "cancelled"))), cause: seq
    ) { $0.inFlight = [:] }
  }
}
