import SusiClock
import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiRunner
import SusiTesting
import Testing

@Suite(.hangLimit)
struct RunnerSchedulingTests {
  static let groupsReply = #"{"accepted":true,"groups":["Knowledge"],"message":"ok"}"#

  @Test func everyEffectDeliversExactlyOneResultWithItsCause() async {
    // Deadlines far away, so only backoff sleeps are ever due.
    let harness = Harness(
      configure: { $0.timeouts.total = 1_000_000 },
      respond: { request in
        if request.path == "/cms/getGroups.json" { return .json(Self.groupsReply) }
        if request.path == "/susi/chat.json" { throw TransportError.connectionLost("reset") }
        return .jettyError(500, "boom")
      })
    var expected: [Int] = []
    for cause in 1...300 {
      let effect: Effect =
        switch cause % 5 {
        case 0: .fetchGroups(server: "embedded", language: "en")
        case 1: .webSearch(query: "r\(cause)")
        case 2: .chat(server: "embedded", query: "q\(cause)", language: nil)
        case 3: .fetchSettings(server: "embedded")
        default: .fetchSkill(server: "embedded", group: "G", skill: "s", language: "en")
        }
      harness.start(effect, cause: cause)
      expected.append(cause)
    }
    // Internal-server errors on an idempotent read are retried after backoff: let time pass.
    // Waits for the results themselves, not for a span of real time: on a busy machine the
    // thousands of task hops behind 300 effects and their retries can take longer than any
    // budget a quiet one suggests. An effect that never delivers fails the suite's time limit.
    let pump = harness.clock.autoAdvance(sleepsUpTo: 20_000)
    await harness.results.waitForCount(expected.count)
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
    pump.cancel()
    await pump.value
    let causes = harness.results.all.map(\.cause).sorted()
    #expect(causes == expected)
    for entry in harness.results.all {
      switch entry.cause % 5 {
      case 0: #expect(entry.action == .groupsLoaded(.init(groups: ["Knowledge"])))
      case 1: #expect(entry.action.failure?.status == 500)
      case 2: #expect(entry.action.failure?.kind == .network)
      case 3: #expect(entry.action.failure?.kind == .notLoggedIn)
      default:
        #expect(entry.action.failure == RequestError(kind: .http, status: 500, message: "boom"))
        if case .requestFailed(let p) = entry.action { #expect(p.cause == entry.cause) }
      }
    }
  }

  @Test func noMoreThanTheLimitRunAtOnceAndTheRestStartInOrder() async {
    let harness = Harness(
      holding: true, configure: { $0.concurrencyLimit = 3 },
      respond: { _ in
        .json(Self.groupsReply)
      })
    for cause in 1...10 {
      harness.start(
        .fetchSkill(server: "embedded", group: "G", skill: "s\(cause)", language: "en"),
        cause: cause)
    }
    await harness.transport.waitForHeld(count: 3)
    #expect(harness.transport.requests.count == 3)
    for next in 4...10 {
      harness.transport.release(1)
      await harness.transport.waitForHeld(count: 3)
      #expect(harness.transport.heldRequests.last?.parameters["skill"] == "s\(next)")
    }
    harness.transport.releaseAll()
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
    #expect(harness.transport.maximumInFlight == 3)
    #expect(harness.results.all.count == 10)
  }

  @Test func cancellingARunningRequestDeliversCancelledOnce() async {
    let harness = Harness(holding: true) { _ in .json(Self.groupsReply) }
    harness.start(.fetchGroups(server: "embedded", language: "en"), cause: 7)
    await harness.transport.waitForHeld(count: 1)
    harness.start(.cancel(seq: 7), cause: 8)
    let result = await harness.results.next(for: 7)
    #expect(
      result
        == .requestFailed(
          .init(cause: 7, error: .init(kind: .cancelled, message: "the request was cancelled"))))
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
    #expect(harness.results.actions(for: 7).count == 1)
    #expect(harness.results.actions(for: 8).isEmpty)
    #expect(harness.transport.requests.count == 1)
  }

  @Test func supersedingARunningRequestDeliversSupersededOnce() async {
    let harness = Harness(holding: true) { _ in .json(Self.groupsReply) }
    harness.start(.fetchGroups(server: "embedded", language: "en"), cause: 7)
    await harness.transport.waitForHeld(count: 1)
    harness.start(.supersede(seq: 7), cause: 8)
    #expect(
      await harness.results.next(for: 7)
        == .requestFailed(
          .init(
            cause: 7,
            error: .init(kind: .superseded, message: "replaced by the same request of event 8"))))
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
    #expect(harness.results.actions(for: 7).count == 1)
    #expect(harness.results.actions(for: 8).isEmpty)
  }

  @Test func supersedingAWaitingRequestNeverSendsIt() async {
    let harness = Harness(
      holding: true, configure: { $0.concurrencyLimit = 1 },
      respond: { _ in
        .json(Self.groupsReply)
      })
    harness.start(.fetchGroups(server: "embedded", language: "en"), cause: 1)
    harness.start(.fetchGroups(server: "embedded", language: "en"), cause: 2)
    await harness.transport.waitForHeld(count: 1)
    harness.start(.supersede(seq: 2), cause: 3)
    #expect(await harness.results.next(for: 2).failure?.kind == .superseded)
    harness.transport.releaseAll()
    #expect(await harness.results.next(for: 1) == .groupsLoaded(.init(groups: ["Knowledge"])))
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
    #expect(harness.transport.requests.count == 1)
  }

  @Test func cancellingAWaitingRequestNeverSendsIt() async {
    let harness = Harness(
      holding: true, configure: { $0.concurrencyLimit = 1 },
      respond: { _ in
        .json(Self.groupsReply)
      })
    harness.start(.fetchGroups(server: "embedded", language: "en"), cause: 1)
    harness.start(.fetchGroups(server: "embedded", language: "en"), cause: 2)
    await harness.transport.waitForHeld(count: 1)
    harness.start(.cancel(seq: 2), cause: 3)
    #expect(
      await harness.results.next(for: 2)
        == .requestFailed(
          .init(cause: 2, error: .init(kind: .cancelled, message: "the request was cancelled"))))
    harness.transport.releaseAll()
    #expect(await harness.results.next(for: 1) == .groupsLoaded(.init(groups: ["Knowledge"])))
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
    #expect(harness.transport.requests.count == 1)
  }

  /// A task that delivered its job goes on with the next waiting one; a cancel of one job
  /// must reach that job only, whichever task it runs in.
  @Test func aCancelOneSlotDeepReachesOnlyItsOwnRequest() async {
    let harness = Harness(
      holding: true, configure: { $0.concurrencyLimit = 1 },
      respond: { _ in
        .json(Self.groupsReply)
      })
    for cause in 1...4 {
      harness.start(.fetchGroups(server: "embedded", language: "en"), cause: cause)
    }
    await harness.transport.waitForHeld(count: 1)
    harness.start(.cancel(seq: 1), cause: 11)
    #expect(await harness.results.next(for: 1).failure?.kind == .cancelled)
    await harness.transport.waitForHeld(count: 1)
    harness.transport.release(1)
    #expect(await harness.results.next(for: 2) == .groupsLoaded(.init(groups: ["Knowledge"])))
    await harness.transport.waitForHeld(count: 1)
    harness.start(.cancel(seq: 3), cause: 13)
    #expect(await harness.results.next(for: 3).failure?.kind == .cancelled)
    await harness.transport.waitForHeld(count: 1)
    harness.transport.releaseAll()
    #expect(await harness.results.next(for: 4) == .groupsLoaded(.init(groups: ["Knowledge"])))
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
    #expect(harness.transport.requests.count == 4)
    #expect(harness.results.all.count == 4)
  }

  @Test func plannedAnswersArriveOnlyWhenTheClockReachesTheirDelay() async {
    let harness = Harness()
    let message = Action.MessageReceived(
      query: "remind me", answers: [.answer(expression: "now!", language: nil, mood: nil)])
    harness.start(.deliverLater(delayMilliseconds: 5000, message: message), cause: 9)
    await harness.clock.waitForSleepers(count: 1)
    await harness.clock.advance(by: .milliseconds(4999))
    #expect(await harness.runner.waitUntilIdle(timeout: 0.05) == false)
    #expect(harness.results.all.isEmpty)
    await harness.clock.advance(by: .milliseconds(1))
    #expect(await harness.results.next(for: 9) == .messageReceived(message))
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
  }

  @Test func aCancelledPlannedAnswerReportsCancelled() async {
    let harness = Harness()
    harness.start(
      .deliverLater(delayMilliseconds: 60_000, message: .init(query: "q", answers: [])), cause: 4)
    await harness.clock.waitForSleepers(count: 1)
    harness.start(.cancel(seq: 4), cause: 5)
    #expect(await harness.results.next(for: 4).failure?.kind == .cancelled)
  }

  @Test func shutdownCancelsEverythingAndDeliversNothingMore() async {
    let harness = Harness(
      holding: true, configure: { $0.concurrencyLimit = 2 },
      respond: { _ in
        .json(Self.groupsReply)
      })
    for cause in 1...5 {
      harness.start(.fetchGroups(server: "embedded", language: "en"), cause: cause)
    }
    harness.start(
      .deliverLater(delayMilliseconds: 1000, message: .init(query: "q", answers: [])), cause: 6)
    await harness.transport.waitForHeld(count: 2)
    await harness.runner.shutdown()
    #expect(harness.results.all.isEmpty)
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
    harness.start(.fetchGroups(server: "embedded", language: "en"), cause: 7)
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
    #expect(harness.results.all.isEmpty)
    #expect(harness.transport.requests.count == 2)
  }

  @Test func waitUntilIdleGivesUpAfterItsTimeout() async {
    let harness = Harness(holding: true) { _ in .json(Self.groupsReply) }
    harness.start(.fetchGroups(server: "embedded", language: "en"), cause: 1)
    #expect(await harness.runner.waitUntilIdle(timeout: 0.05) == false)
    harness.transport.releaseAll()
    #expect(await harness.runner.waitUntilIdle(timeout: Double(hangLimitSeconds)))
  }
}
