import SusiClock
import SusiCore
import SusiStore
import SusiTesting
import Testing

/// Idempotency keys are kept for a window of event time and bounded in count, the same live
/// and after replay.
@Suite struct IdempotencyKeysTests {
  let start = Timestamp(milliseconds: 1_795_000_000_000)

  private func event(_ seq: Int, at: Timestamp, key: String?) -> Event {
    Event(seq: seq, at: at, origin: .webhook, idempotencyKey: key, action: .loadGroups(.init()))
  }

  @Test func aKeyExpiresByEventTimeAfterTheWindowAndMayBeUsedAgain() async throws {
    let sink = MemoryEventSink()
    let clock = ManualTimeSource(start)
    let store = Store(sink: sink, runner: ManualRunner(), clock: clock)
    let first = try await store.send(.loadGroups(.init()), origin: .webhook, idempotencyKey: "k")
    let window = IdempotencyKeys.defaultWindowMilliseconds
    #expect(window == 24 * 60 * 60 * 1000)

    clock.setWallClock(to: start.adding(milliseconds: window - 1))
    await #expect(throws: StoreError.duplicate(seq: first.seq)) {
      try await store.send(.loadGroups(.init()), origin: .webhook, idempotencyKey: "k")
    }
    clock.setWallClock(to: start.adding(milliseconds: window))
    let again = try await store.send(.loadGroups(.init()), origin: .webhook, idempotencyKey: "k")
    #expect(again.seq == first.seq + 1)
    #expect(await store.seq(forIdempotencyKey: "k") == again.seq)
    await #expect(throws: StoreError.duplicate(seq: again.seq)) {
      try await store.send(.loadGroups(.init()), origin: .webhook, idempotencyKey: "k")
    }
  }

  @Test func atMostLimitKeysAreKeptTheOldestGoingFirst() {
    var keys = IdempotencyKeys(limit: 3)
    for n in 1...5 { keys.record(event(n, at: start, key: "k\(n)")) }
    #expect(keys.count == 3)
    #expect(keys.seqsByKey == ["k3": 3, "k4": 4, "k5": 5])
    #expect(IdempotencyKeys().limit == 100_000)
  }

  @Test func expiredKeysAreForgottenWhenLaterEventsArrive() {
    var keys = IdempotencyKeys(windowMilliseconds: 1000)
    keys.record(event(1, at: start, key: "a"))
    keys.record(event(2, at: start.adding(milliseconds: 500), key: "b"))
    keys.record(event(3, at: start.adding(milliseconds: 1000), key: nil))
    #expect(keys.seqsByKey == ["b": 2])
    // A duplicate inside the window keeps the first event.
    keys.record(event(4, at: start.adding(milliseconds: 1200), key: "b"))
    #expect(keys.seq(for: "b", at: start.adding(milliseconds: 1200)) == 2)
    #expect(keys.seq(for: "b", at: start.adding(milliseconds: 1500)) == nil)
  }

  @Test func replayRebuildsTheSameKeysAsTheLiveStore() async throws {
    let sink = MemoryEventSink()
    let clock = ManualTimeSource(start)
    let limits = IdempotencyKeys(windowMilliseconds: 1000, limit: 4)
    let store = Store(
      sink: sink, runner: ManualRunner(), clock: clock,
      recovered: Recovered(idempotencyKeys: limits))
    // Keys come back inside the window (refused), after it (used again), and crowd each
    // other out past the limit.
    var candidates: Set<String> = []
    for n in 0..<60 {
      clock.setWallClock(to: start.adding(milliseconds: Int64(n) * 100))
      let key = n % 7 == 6 ? "u\(n)" : "k\(n % 4)"
      candidates.insert(key)
      _ = try? await store.send(.loadGroups(.init()), origin: .webhook, idempotencyKey: key)
    }
    #expect(sink.lines.count > 20 && sink.lines.count < 60)

    var replayed = Recovered(idempotencyKeys: limits)
    for line in sink.lines { replayed.apply(try Event.decode(line)) }
    #expect(replayed.idempotencyKeys.count <= 4)
    #expect(!replayed.idempotencyKeys.seqsByKey.isEmpty)
    for key in candidates {
      #expect(
        await store.seq(forIdempotencyKey: key)
          == replayed.idempotencyKeys.seq(for: key, at: replayed.lastAt))
    }
    var again = Recovered(idempotencyKeys: limits)
    for line in sink.lines { again.apply(try Event.decode(line)) }
    #expect(again.idempotencyKeys.seqsByKey == replayed.idempotencyKeys.seqsByKey)
  }
}
