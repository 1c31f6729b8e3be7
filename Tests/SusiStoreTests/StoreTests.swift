import SusiClock
import SusiCore
import SusiCoreTesting
import SusiJSON
import SusiStore
import SusiTesting
import Testing

/// The store: stamp, append (before anything else), reduce, start effects, publish.
@Suite struct StoreTests {
  private func decode(_ line: [UInt8]) throws -> Event { try Event.decode(line) }

  @Test func logsEachActionBeforeItsEffectsStartAndPublishesTheLoggedBytes() async throws {
    let sink = MemoryEventSink()
    let runner = ManualRunner()
    let store = Store(sink: sink, runner: runner, clock: ManualTimeSource(ReducerTester.epoch))
    let events = store.events(after: 0)
    let sent = try await store.send(.loadGroups(.init()), origin: .test)
    #expect(sent.seq == 1)
    #expect(sink.lines.count == 1)
    #expect(try decode(sink.lines[0]) == sent.event)
    #expect(sent.line == sink.lines[0])
    #expect(runner.effects.map(\.cause) == [1])
    #expect(runner.effects.map(\.effect) == [.fetchGroups(server: "embedded", language: "en")])
    var iterator = events.makeAsyncIterator()
    let published = try await iterator.next()
    #expect(published?.line == sent.line)
    #expect(await store.state.inFlight[1]?.type == "loadGroups")
  }

  @Test func aResultIsLoggedWithItsCauseAndReduced() async throws {
    let sink = MemoryEventSink()
    let runner = ManualRunner()
    let store = Store(sink: sink, runner: runner, clock: ManualTimeSource(ReducerTester.epoch))
    _ = try await store.send(.loadGroups(.init()), origin: .test)
    await runner.deliver(.groupsLoaded(.init(groups: ["Knowledge"])), for: 1)
    let result = try decode(sink.lines[1])
    #expect(result.seq == 2)
    #expect(result.cause == 1)
    #expect(result.origin == .runner)
    #expect(await store.state.groups == ["Knowledge"])
    #expect(await store.state.inFlight.isEmpty)
    #expect(await store.hasPendingResults(for: 1) == false)
  }

  @Test func carriesTheCallersIdThroughAChainOfResults() async throws {
    let sink = MemoryEventSink()
    let runner = ManualRunner()
    let store = Store(sink: sink, runner: runner, clock: ManualTimeSource(ReducerTester.epoch))
    let asked = try await store.send(
      .sendMessage(.init(query: "set a timer")), origin: .jsonl, id: "r1")
    #expect(asked.event.id == "r1")
    let planned = Action.MessageReceived(
      query: "set a timer", answers: [.answer(expression: "Timer set.", language: nil, mood: nil)],
      planned: [
        PlannedAnswer(
          delayMilliseconds: 1000,
          answers: [.answer(expression: "Time is up.", language: nil, mood: nil)])
      ])
    await runner.deliver(.messageReceived(planned), for: 1)
    #expect(await store.hasPendingResults(for: 2))
    await runner.deliver(
      .messageReceived(
        .init(
          query: "set a timer",
          answers: [.answer(expression: "Time is up.", language: nil, mood: nil)])),
      for: 2)
    let lines = try sink.lines.map(decode)
    #expect(lines.map(\.id) == ["r1", "r1", "r1"])
    #expect(lines.map(\.cause) == [nil, 1, 2])
    #expect(await store.hasPendingResults(for: [1, 2, 3]) == false)
  }

  @Test func aRejectedIntentIsLoggedAndItsRejectionCarriesTheId() async throws {
    let sink = MemoryEventSink()
    let store = Store(
      sink: sink, runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    let before = await store.state
    let events = store.events(after: 0)
    let asked = try await store.send(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 9)), origin: .jsonl, id: 42
    )
    // The runner answers rejections on its own task; wait for the result to be published.
    var published: PublishedEvent?
    for try await event in events where event.seq == asked.seq + 1 {
      published = event
      break
    }
    let rejection = try #require(published).event
    #expect(sink.lines.count == 2)
    #expect(rejection.cause == asked.seq)
    #expect(rejection.id == 42)
    #expect(rejection.action == .actionRejected(.init(reason: "stars must be 1 to 5, not 9")))
    #expect(await store.state == before)
  }

  @Test func anIdempotencyKeyIsUsedOnce() async throws {
    let sink = MemoryEventSink()
    let store = Store(
      sink: sink, runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    let first = try await store.send(.loadGroups(.init()), origin: .webhook, idempotencyKey: "k-1")
    await #expect(throws: StoreError.duplicate(seq: first.seq)) {
      try await store.send(.loadGroups(.init()), origin: .webhook, idempotencyKey: "k-1")
    }
    #expect(sink.lines.count == 1)
    #expect(await store.seq(forIdempotencyKey: "k-1") == first.seq)

    // The key survives a restart: recovery rebuilds it from the log.
    var recovered = Recovered()
    for line in sink.lines { recovered.apply(try decode(line)) }
    let restarted = Store(
      sink: sink, runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch),
      recovered: recovered)
    await #expect(throws: StoreError.duplicate(seq: first.seq)) {
      try await restarted.send(.loadGroups(.init()), origin: .webhook, idempotencyKey: "k-1")
    }
  }

  @Test func whenTheLogFailsNothingChangesAndNothingMoreIsAccepted() async throws {
    let runner = ManualRunner()
    let store = Store(
      sink: FailingSink(), runner: runner, clock: ManualTimeSource(ReducerTester.epoch))
    await #expect(throws: StoreError.self) {
      try await store.send(.loadGroups(.init()), origin: .test)
    }
    #expect(await store.state == State())
    #expect(await store.lastSeq == 0)
    #expect(runner.effects.isEmpty)
  }

  @Test func timeInTheLogNeverRunsBackwards() async throws {
    let sink = MemoryEventSink()
    let clock = ManualTimeSource(Timestamp(milliseconds: 10_000))
    let store = Store(sink: sink, runner: ManualRunner(), clock: clock)
    _ = try await store.send(.loadGroups(.init()), origin: .test)
    clock.setWallClock(to: Timestamp(milliseconds: 5_000))
    let second = try await store.send(.loadHistory(.init()), origin: .test)
    #expect(second.event.at == Timestamp(milliseconds: 10_000))
  }

  @Test func requestsInFlightWhenTheLastRunStoppedAreClosedAsInterrupted() async throws {
    var recovered = Recovered()
    recovered.apply(
      Event(seq: 1, at: ReducerTester.epoch, origin: .cli, id: "x", action: .loadGroups(.init())))
    let sink = MemoryEventSink()
    let runner = ManualRunner()
    let store = Store(
      sink: sink, runner: runner, clock: ManualTimeSource(ReducerTester.epoch), recovered: recovered
    )
    let closed = try await store.closeInterruptedRequests()
    #expect(closed.count == 1)
    let event = try decode(sink.lines[0])
    #expect(event.seq == 2)
    #expect(event.cause == 1)
    #expect(event.origin == .store)
    #expect(event.id == "x")
    guard case .requestFailed(let failure) = event.action else {
      Issue.record("expected requestFailed, got \(event.action.type)")
      return
    }
    #expect(failure.error.kind == .interrupted)
    #expect(await store.state.inFlight.isEmpty)
    #expect(await store.state.lastErrors["loadGroups"]?.kind == .interrupted)
    #expect(runner.effects.isEmpty, "nothing is re-sent")
  }

  @Test func aPasswordNeverReachesTheLogOrSubscribers() async throws {
    let sink = MemoryEventSink()
    let runner = ManualRunner()
    let store = Store(sink: sink, runner: runner, clock: ManualTimeSource(ReducerTester.epoch))
    let sent = try await store.send(
      .login(.init(email: "ada@example.org", password: Secret("Canary-Password-8472!"))),
      origin: .test)
    let text = String(decoding: sent.line, as: UTF8.self)
    #expect(!text.contains("Canary-Password-8472!"))
    #expect(text.contains(Secret.redactedText))
    // Only the effect handed to the runner still holds it, to build the request.
    guard case .login(_, _, let password, _)? = runner.effects.first?.effect else {
      Issue.record("expected a login effect")
      return
    }
    #expect(password.reveal() == "Canary-Password-8472!")
  }
}

/// A sink whose disk is full.
private struct FailingSink: EventSink {
  struct Full: Error {}
  func append(_ record: [UInt8]) throws -> [UInt8] { throw Full() }
  func sync() throws {}
  func close() {}
  var history: any EventHistory { MemoryEventHistory(MemoryEventSink()) }
}

@Suite struct StoreBackpressureTests {
  @Test func isFullWhileTheLimitOfRequestsOweResultsAndWakesWaitersWhenOneArrives() async throws {
    let runner = ManualRunner()
    let store = Store(
      sink: MemoryEventSink(), runner: runner, clock: ManualTimeSource(ReducerTester.epoch),
      inFlightLimit: 2)
    try await store.send(.loadGroups(.init()), origin: .test)
    #expect(await !store.isFull)
    try await store.send(.loadGroups(.init()), origin: .test)
    #expect(await store.isFull)
    let waiter = Task {
      await store.waitForRoom()
      return await store.isFull
    }
    await runner.deliver(.groupsLoaded(.init(groups: ["A"])), for: 1)
    #expect(await waiter.value == false)
    await store.close()
  }

  /// A full store lets a waiter go only once an eighth of its limit is free again, so a
  /// frontend held back sends its next intents together rather than one per result.
  @Test func aFullStoreReleasesWaitersOnceAnEighthOfItsLimitIsFree() async throws {
    let runner = ManualRunner()
    let store = Store(
      sink: MemoryEventSink(), runner: runner, clock: ManualTimeSource(ReducerTester.epoch),
      inFlightLimit: 16)
    #expect(store.refillRoom == 2)
    for _ in 1...16 { try await store.send(.loadGroups(.init()), origin: .test) }
    #expect(await store.isFull)
    let waiter = Task {
      await store.waitForRoom()
      return await store.room
    }
    await runner.deliver(.groupsLoaded(.init(groups: ["A"])), for: 1)
    await runner.deliver(.groupsLoaded(.init(groups: ["B"])), for: 2)
    #expect(await waiter.value == 2)
    // Not full: no wait at all.
    await store.waitForRoom()
    await store.close()
  }

  @Test func waitersAreReleasedWhenTheStoreCloses() async throws {
    let store = Store(
      sink: MemoryEventSink(), runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch),
      inFlightLimit: 1)
    try await store.send(.loadGroups(.init()), origin: .test)
    let waiter = Task { await store.waitForRoom() }
    await store.close()
    await waiter.value
  }
}
