import SusiClock
import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiRunner
import SusiTesting
import Synchronization
import Testing

/// The runner's retry behaviour, driven through a fake transport and a test clock.
@Suite(.hangLimit)
struct RetryTests {
  static let groups = Effect.fetchGroups(server: "embedded", language: "en")
  static let chat = Effect.chat(server: "embedded", query: "hello", language: nil)
  static let ok = #"{"accepted":true,"groups":["Knowledge"]}"#
  /// The default per-request deadline, in milliseconds: sleeps of this length are deadlines.
  static let deadline: Int64 = 30_000

  /// Replies from `replies` in turn, repeating the last one.
  static func sequence(_ replies: [Result<TransportResponse, TransportError>])
    -> FakeTransport.Responder
  {
    let next = Mutex(0)
    return { _ in
      let index = next.withLock { n -> Int in
        defer { n += 1 }
        return min(n, replies.count - 1)
      }
      return try replies[index].get()
    }
  }

  /// Runs `effect` to its result while backoff sleeps are advanced automatically.
  static func runWithBackoff(_ harness: Harness, _ effect: Effect) async -> Action {
    let pump = harness.clock.autoAdvance(sleepsUpTo: deadline - 1)
    defer { pump.cancel() }
    return await harness.run(effect)
  }

  static func backoffSleeps(_ harness: Harness) -> [Int64] {
    harness.clock.requestedSleeps.filter { $0 != deadline }
  }

  @Test func transientFailuresAreRetriedUpToTheAttemptLimitWithFullJitter() async {
    let harness = Harness(
      respond: Self.sequence([.success(.jettyError(503, "your request frequency is too high"))]))
    let result = await Self.runWithBackoff(harness, Self.groups)
    #expect(
      result.failure
        == RequestError(kind: .http, status: 503, message: "your request frequency is too high"))
    #expect(harness.transport.requests.count == 3)
    let sleeps = Self.backoffSleeps(harness)
    #expect(sleeps.count == 2)
    #expect((0...500).contains(sleeps[0]))
    #expect((0...1000).contains(sleeps[1]))
  }

  @Test(arguments: 1...40 as ClosedRange<UInt64>)
  func everyBackoffDelayLiesInsideTheEnvelope(seed: UInt64) async {
    let policy = RetryPolicy(
      maximumAttempts: 7, baseDelayMilliseconds: 100, maximumDelayMilliseconds: 1500)
    let harness = Harness(
      configure: {
        $0.retryPolicy = policy
        $0.randomSeed = seed
      }, respond: { _ in throw TransportError.cannotConnect("refused") })
    let result = await Self.runWithBackoff(harness, Self.groups)
    #expect(result.failure?.kind == .network)
    #expect(harness.transport.requests.count == 7)
    let sleeps = Self.backoffSleeps(harness)
    #expect(sleeps.count == 6)
    for (retry, delay) in sleeps.enumerated() {
      #expect(delay >= 0 && delay <= min(1500, 100 << retry), "retry \(retry) waited \(delay) ms")
    }
  }

  @Test func jitterDependsOnTheSeed() async {
    var seen = Set<[Int64]>()
    for seed in 1...5 as ClosedRange<UInt64> {
      let harness = Harness(
        configure: { $0.randomSeed = seed },
        respond: { _ in
          throw TransportError.cannotConnect("refused")
        })
      _ = await Self.runWithBackoff(harness, Self.groups)
      seen.insert(Self.backoffSleeps(harness))
    }
    #expect(seen.count == 5)
  }

  @Test func retryAfterInSecondsIsWaitedFor() async {
    let harness = Harness(
      respond: Self.sequence([
        .success(
          .jettyError(503, "your request frequency is too high", headers: [("Retry-After", "7")])),
        .success(.json(Self.ok)),
      ]))
    let result = await Self.runWithBackoff(harness, Self.groups)
    #expect(result == .groupsLoaded(.init(groups: ["Knowledge"])))
    #expect(Self.backoffSleeps(harness) == [7000])
  }

  @Test func retryAfterAsAnHTTPDateIsWaitedFor() async {
    // The test clock starts at 2026-11-21T10:00:00Z.
    let harness = Harness(
      respond: Self.sequence([
        .success(
          .jettyError(503, "busy", headers: [("Retry-After", "Sat, 21 Nov 2026 10:00:12 GMT")])),
        .success(.json(Self.ok)),
      ]))
    let result = await Self.runWithBackoff(harness, Self.groups)
    #expect(result == .groupsLoaded(.init(groups: ["Knowledge"])))
    #expect(Self.backoffSleeps(harness) == [12_000])
  }

  @Test func aShortRetryAfterLosesToALongerJitter() async {
    let harness = Harness(
      configure: {
        $0.retryPolicy = RetryPolicy(
          baseDelayMilliseconds: 10_000, maximumDelayMilliseconds: 10_000)
      },
      respond: Self.sequence([
        .success(.jettyError(503, "busy", headers: [("Retry-After", "0")])),
        .success(.json(Self.ok)),
      ]))
    _ = await Self.runWithBackoff(harness, Self.groups)
    let sleeps = Self.backoffSleeps(harness)
    #expect(sleeps.count == 1)
    #expect((0...10_000).contains(sleeps[0]))
  }

  @Test func aRetryAfterBeyondTheCapIsNotWaitedFor() async {
    let harness = Harness(
      respond: Self.sequence([
        .success(.jettyError(503, "busy", headers: [("Retry-After", "3600")]))
      ]))
    let result = await harness.run(Self.groups)
    #expect(result.failure == RequestError(kind: .http, status: 503, message: "busy"))
    #expect(harness.transport.requests.count == 1)
    #expect(Self.backoffSleeps(harness).isEmpty)
  }

  @Test(arguments: [400, 401, 403, 404, 422, 429])
  func clientErrorsAreNeverRetried(status: Int) async {
    let harness = Harness { _ in .jettyError(status, "refused") }
    let result = await harness.run(Self.groups)
    #expect(result.failure == RequestError(kind: .http, status: status, message: "refused"))
    #expect(harness.transport.requests.count == 1)
  }

  @Test(arguments: [
    TransportError.connectionLost("reset"), .timedOut, .failed("odd"),
  ])
  func aChatWhoseOutcomeIsUnknownIsNotSentAgain(error: TransportError) async {
    let harness = Harness { _ in throw error }
    let result = await Self.runWithBackoff(harness, Self.chat)
    #expect(result.failure?.kind == (error == .timedOut ? .timeout : .network))
    #expect(harness.transport.requests.count == 1)
  }

  @Test func aChatAnsweredWithAnInternalErrorIsNotSentAgain() async {
    let harness = Harness { _ in .jettyError(500, "java.lang.NullPointerException") }
    let result = await Self.runWithBackoff(harness, Self.chat)
    #expect(result.failure?.status == 500)
    #expect(harness.transport.requests.count == 1)
  }

  @Test func aLoginWhoseOutcomeIsUnknownIsNotSentAgain() async {
    let harness = Harness { _ in throw TransportError.connectionLost("reset") }
    let login = Effect.login(
      server: "embedded", email: "a@b.example", password: Secret("pw"), validSeconds: nil)
    let result = await Self.runWithBackoff(harness, login)
    guard case .loginFailed(let failed) = result else {
      Issue.record("expected loginFailed, got \(result)")
      return
    }
    #expect(failed.error.kind == .network)
    #expect(harness.transport.requests.count == 1)
  }

  @Test func aChatThatNeverReachedTheServerIsSentAgain() async {
    let harness = Harness(
      respond: Self.sequence([
        .failure(.cannotConnect("refused")), .success(.json(#"{"query":"hello"}"#)),
      ]))
    let result = await Self.runWithBackoff(harness, Self.chat)
    #expect(result == .messageReceived(.init(query: "hello", answers: [])))
    #expect(harness.transport.requests.count == 2)
  }

  @Test func aChatRefusedAsTooFrequentIsSentAgain() async {
    let harness = Harness(
      respond: Self.sequence([
        .success(.jettyError(503, "your request frequency is too high")),
        .success(.json(#"{"query":"hello"}"#)),
      ]))
    let result = await Self.runWithBackoff(harness, Self.chat)
    #expect(result == .messageReceived(.init(query: "hello", answers: [])))
    #expect(harness.transport.requests.count == 2)
  }

  @Test func anIdempotentReadIsSentAgainAfterAReset() async {
    let harness = Harness(
      respond: Self.sequence([.failure(.connectionLost("reset")), .success(.json(Self.ok))]))
    let result = await Self.runWithBackoff(harness, Self.groups)
    #expect(result == .groupsLoaded(.init(groups: ["Knowledge"])))
    #expect(harness.transport.requests.count == 2)
  }

  @Test func aRequestWithoutAReplyTimesOutOnTheRunnersClock() async {
    let harness = Harness(holding: true) { _ in .json(#"{"query":"hello"}"#) }
    harness.start(Self.chat, cause: 5)
    await harness.transport.waitForHeld(count: 1)
    await harness.clock.waitForSleepers(count: 1)
    #expect(harness.clock.pendingSleeps == [Self.deadline])
    await harness.clock.advance(by: .milliseconds(Self.deadline - 1))
    #expect(harness.results.all.isEmpty)
    await harness.clock.advance(by: .milliseconds(1))
    let result = await harness.results.next(for: 5)
    #expect(result.failure?.kind == .timeout)
    #expect(
      result.failure?.message
        == "http://127.0.0.1:4000/susi/chat.json did not answer in time; try again later")
    #expect(harness.transport.heldRequests.isEmpty)
    #expect(harness.transport.requests.count == 1)
  }

  @Test func anIdempotentReadThatTimesOutIsTriedThreeTimes() async {
    let harness = Harness(holding: true) { _ in .json(Self.ok) }
    harness.start(Self.groups, cause: 1)
    for attempt in 1...3 {
      await harness.transport.waitForHeld(count: 1)
      await harness.clock.waitForSleepers { $0 == [Self.deadline] }
      await harness.clock.advance(by: .milliseconds(Self.deadline))
      if attempt < 3 {
        await harness.clock.waitForSleepers { $0.count == 1 && $0[0] < Self.deadline }
        // The wait also returns when the test is cancelled (its time limit on a starved
        // machine): fail, never trap, since a trap ends every other test of the run with it.
        guard let backoff = harness.clock.pendingSleeps.first else {
          Issue.record("no backoff sleep after attempt \(attempt)")
          return
        }
        await harness.clock.advance(by: .milliseconds(backoff))
      }
    }
    #expect(await harness.results.next(for: 1).failure?.kind == .timeout)
    #expect(harness.transport.requests.count == 3)
  }

  @Test func cancellingDuringBackoffDeliversCancelledWithoutAnotherAttempt() async {
    let harness = Harness { _ in .jettyError(503, "busy") }
    harness.start(Self.groups, cause: 2)
    await harness.clock.waitForSleepers { $0.contains { $0 < Self.deadline } }
    harness.start(.cancel(seq: 2), cause: 3)
    #expect(await harness.results.next(for: 2).failure?.kind == .cancelled)
    #expect(harness.transport.requests.count == 1)
  }
}
