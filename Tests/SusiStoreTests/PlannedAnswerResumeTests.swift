import SusiClock
import SusiCore
import SusiCoreTesting
import SusiStore
import SusiTesting
import Testing

/// A planned answer (a reminder) outlives the run that received it: the next start schedules it
/// again from the log, delivers it late, or drops it when it is too late, on an injected clock.
@Suite struct PlannedAnswerResumeTests {
  static let minute: Int64 = 60_000
  static let reminder = Action.MessageReceived(
    query: "remind me to drink water",
    answers: [.answer(expression: "I will remind you in 30 minutes.", language: nil, mood: nil)],
    planned: [
      PlannedAnswer(
        delayMilliseconds: 30 * 60_000,
        answers: [.answer(expression: "Drink some water!", language: nil, mood: nil)])
    ])
  static let delivery = Action.MessageReceived(
    query: "remind me to drink water",
    answers: [.answer(expression: "Drink some water!", language: nil, mood: nil)])

  /// A log in which a reminder was planned at `start`, by a run that then stopped; and the
  /// store of the next run, started `later` milliseconds after, with its runner.
  static func restarted(after later: Int64) async throws -> (Store, ManualRunner, MemoryEventSink) {
    let start = ReducerTester.epoch
    let clock = ManualTimeSource(start)
    let sink = MemoryEventSink()
    let firstRunner = ManualRunner()
    let first = Store(sink: sink, runner: firstRunner, clock: clock)
    let asked = try await first.send(.sendMessage(.init(query: reminder.query)), origin: .cli)
    await firstRunner.deliver(.messageReceived(reminder), for: asked.seq)
    #expect(await first.state.inFlight[2]?.due == start.adding(milliseconds: 30 * minute))

    var recovered = Recovered()
    for line in sink.lines { recovered.apply(try Event.decode(line)) }
    clock.setWallClock(to: start.adding(milliseconds: later))
    let runner = ManualRunner()
    return (Store(sink: sink, runner: runner, clock: clock, recovered: recovered), runner, sink)
  }

  @Test func aReminderStillToComeIsScheduledForWhatIsLeftOfItsDelay() async throws {
    let (store, runner, _) = try await Self.restarted(after: 10 * Self.minute)
    let resumed = try await store.resumePlannedAnswers()
    let due = ReducerTester.epoch.adding(milliseconds: 30 * Self.minute)
    #expect(
      resumed.plans == [
        ResumedPlan(seq: 2, query: Self.reminder.query, due: due, fate: .rescheduled)
      ])
    #expect(resumed.logged.isEmpty)
    #expect(
      runner.effects.map(\.effect) == [
        .deliverLater(delayMilliseconds: Int(20 * Self.minute), message: Self.delivery)
      ])
    #expect(runner.effects.map(\.cause) == [2])
    // It is not closed as interrupted, and its delivery ends the request as the first run's would.
    #expect(try await store.closeInterruptedRequests(keeping: [2]).isEmpty)
    await runner.deliver(.messageReceived(Self.delivery), for: 2)
    #expect(await store.state.inFlight.isEmpty)
    #expect(await store.state.transcript.last?.answers == Self.delivery.answers)
  }

  @Test func aReminderDueWhileSusiWasNotRunningIsDeliveredAtOnce() async throws {
    let (store, runner, _) = try await Self.restarted(after: 45 * Self.minute)
    let resumed = try await store.resumePlannedAnswers()
    #expect(resumed.plans.map(\.fate) == [.deliveredLate])
    #expect(
      runner.effects.map(\.effect) == [
        .deliverLater(delayMilliseconds: 0, message: Self.delivery)
      ])
  }

  @Test func aReminderMoreThanTwelveHoursLateIsDroppedAndSaysWhy() async throws {
    let (store, runner, sink) = try await Self.restarted(
      after: 30 * Self.minute + 12 * 60 * Self.minute + 1)
    let resumed = try await store.resumePlannedAnswers()
    #expect(resumed.plans.map(\.fate) == [.dropped])
    #expect(runner.effects.isEmpty)
    #expect(resumed.logged.count == 1)
    guard case .requestFailed(let failed) = resumed.logged.first?.event.action else {
      Issue.record("expected requestFailed, got \(String(describing: resumed.logged.first))")
      return
    }
    #expect(failed.cause == 2)
    #expect(failed.error.kind == .expired)
    #expect(await store.state.inFlight.isEmpty)
    #expect(sink.lines.count == 3)
  }

  @Test func exactlyTwelveHoursLateIsStillDelivered() async throws {
    let (store, _, _) = try await Self.restarted(after: 30 * Self.minute + 12 * 60 * Self.minute)
    #expect(try await store.resumePlannedAnswers().plans.map(\.fate) == [.deliveredLate])
  }
}
