import Foundation
import SusiClock
import SusiCore
import SusiCoreTesting
import SusiEventLog
import SusiHTTPTesting
import SusiStore
import SusiTesting
import Testing

/// Planned answers on a log several processes share: every store waits for every planned answer,
/// whoever asked; the first to log a delivery wins and the others stand down; no store owes or
/// waits for another's work.
@Suite struct SharedPlannedAnswerTests {
  static let timer = Action.MessageReceived(
    query: "set a timer for 2 seconds",
    answers: [.answer(expression: "Timer set for 2 seconds.", language: nil, mood: nil)],
    planned: [
      PlannedAnswer(
        delayMilliseconds: 2000,
        answers: [.answer(expression: "Your 2 second timer is done.", language: nil, mood: nil)])
    ])
  static let done = Action.MessageReceived(
    query: "set a timer for 2 seconds",
    answers: [.answer(expression: "Your 2 second timer is done.", language: nil, mood: nil)])

  /// One process's store on the shared log.
  struct Peer {
    let store: Store
    let runner: ManualRunner

    init(log: String, clock: ManualTimeSource) async throws {
      let opened = try LogRecovery.open(
        path: log, fsync: .never, environment: [LogRecovery.intervalVariable: "0"], shared: true)
      runner = ManualRunner()
      store = Store(
        sink: FileEventSink(writer: opened.writer), runner: runner, clock: clock,
        recovered: opened.recovered)
      _ = try await store.resumePlannedAnswers()
    }

    /// The planned-answer waits this store's runner was given, as (cause, delay).
    var waits: [(Int, Int)] {
      runner.effects.compactMap {
        guard case .deliverLater(let delay, _) = $0.effect else { return nil }
        return ($0.cause, delay)
      }
    }
  }

  private func log() throws -> String {
    let folder = TestScratch.root
      .appendingPathComponent("susi-shared-plans-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder + "/events.jsonl"
  }

  /// `asker` asks for a timer and gets its answer; the seq of that answer (the plan).
  private func plan(on asker: Peer) async throws -> Int {
    let asked = try await asker.store.send(
      .sendMessage(.init(query: Self.timer.query)), origin: .cli)
    await asker.runner.deliver(.messageReceived(Self.timer), for: asked.seq)
    return asked.seq + 1
  }

  @Test func everyStoreWaitsForAPlannedAnswerWhoeverAskedAndOnlyTheFirstDeliveryIsLogged()
    async throws
  {
    let path = try log()
    let clock = ManualTimeSource(ReducerTester.epoch)
    let asker = try await Peer(log: path, clock: clock)
    let chat = try await Peer(log: path, clock: clock)
    let plan = try await plan(on: asker)
    #expect(await asker.store.ownPlannedAnswers == [plan])
    #expect(!(await asker.store.owesAnswersNow))
    // The chat learns of the plan from the log and waits for it too, for what is left of it.
    await clock.advance(by: .milliseconds(500))
    await chat.store.catchUp()
    #expect(chat.waits.map(\.0) == [plan])
    #expect(chat.waits.map(\.1) == [1500])
    #expect(await chat.store.waitsToDeliver(planned: plan))
    #expect(await chat.store.ownPlannedAnswers.isEmpty, "the chat did not ask for it")

    // Both come due; the chat logs first, the asker then stands down.
    await chat.runner.deliver(.messageReceived(Self.done), for: plan)
    await asker.runner.deliver(.messageReceived(Self.done), for: plan)
    await asker.store.catchUp()
    let deliveries = try readRecords(path).filter { $0.event.cause == plan }
    #expect(deliveries.count == 1)
    #expect(deliveries.first?.event.origin == .runner)
    #expect(await asker.store.state.inFlight.isEmpty)
    #expect(await asker.store.ownPlannedAnswers.isEmpty)
    #expect(!(await chat.store.waitsToDeliver(planned: plan)))
    await asker.store.close()
    await chat.store.close()
  }

  @Test func aStoreThatSeesAnotherDeliverCancelsItsOwnWait() async throws {
    let path = try log()
    let clock = ManualTimeSource(ReducerTester.epoch)
    let asker = try await Peer(log: path, clock: clock)
    let chat = try await Peer(log: path, clock: clock)
    let plan = try await plan(on: asker)
    await chat.store.catchUp()
    await asker.runner.deliver(.messageReceived(Self.done), for: plan)
    await chat.store.catchUp()
    // The chat's runner is told to stop waiting; what its cancelled wait reports is dropped.
    #expect(
      chat.runner.effects.contains {
        if case .cancel(let seq) = $0.effect { return seq == plan }
        return false
      })
    let before = try readRecords(path).count
    await chat.runner.deliver(
      .requestFailed(.init(cause: plan, error: RequestError(kind: .cancelled, message: "c"))),
      for: plan)
    #expect(try readRecords(path).count == before)
    await asker.store.close()
    await chat.store.close()
  }

  @Test func aStoreStartedLaterWaitsForPlansInTheLogWhetherOrNotItIsAlone() async throws {
    let path = try log()
    let clock = ManualTimeSource(ReducerTester.epoch)
    let chat = try await Peer(log: path, clock: clock)
    let asker = try await Peer(log: path, clock: clock)
    let plan = try await plan(on: asker)
    await asker.store.close()
    // A third process starts beside the chat after the asker left, before the timer is due.
    await clock.advance(by: .milliseconds(1200))
    let third = try await Peer(log: path, clock: clock)
    #expect(third.waits.map(\.0) == [plan])
    #expect(third.waits.map(\.1) == [800])
    #expect(!(await third.store.owesAnswersNow), "it owes nothing of its own")
    await chat.store.catchUp()
    #expect(chat.waits.map(\.0) == [plan])
    await third.store.close()
    await chat.store.close()
  }

  @Test func anotherProcesssRequestInFlightIsNotThisOnesToWaitFor() async throws {
    let path = try log()
    let clock = ManualTimeSource(ReducerTester.epoch)
    let a = try await Peer(log: path, clock: clock)
    let b = try await Peer(log: path, clock: clock)
    let asked = try await a.store.send(.sendMessage(.init(query: "hi")), origin: .cli)
    #expect(await a.store.owesAnswersNow)
    await b.store.catchUp()
    #expect(await b.store.state.inFlight[asked.seq] != nil)
    #expect(!(await b.store.owesAnswersNow))
    #expect(await b.store.drainAnswersNow(timeout: 5))
    await a.store.close()
    await b.store.close()
  }
}

/// The records of the log at `path`.
private func readRecords(_ path: String) throws -> [PublishedEvent] {
  let reader = try EventLogReader(path: path)
  defer { reader.close() }
  var records: [PublishedEvent] = []
  while let record = try reader.next() {
    records.append(PublishedEvent(event: try Event.decode(record.object), line: record.object))
  }
  return records
}
