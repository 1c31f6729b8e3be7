import SusiClock
import SusiTesting
import Testing

@Suite struct TimerSleeperTests {
  /// A request timeout is a sleep raced against the request and cancelled when the request
  /// wins: the cancelled sleep must hold nothing afterwards, or every request of the last
  /// timeout period stays in memory.
  @Test func cancelledSleepsReleaseTheirTimersAtOnce() async throws {
    let sleeper = TimerSleeper()
    let hour: Int64 = 3_600_000
    let sleeps = (0..<500).map { _ in
      Task { try await sleeper.sleep(milliseconds: hour) }
    }
    await waitUntil("every timer is armed") { sleeper.liveTimers == sleeps.count }
    for sleep in sleeps { sleep.cancel() }
    for sleep in sleeps {
      await #expect(throws: CancellationError.self) { try await sleep.value }
    }
    #expect(sleeper.liveTimers == 0)
  }

  @Test func aSleepCancelledBeforeItStartsThrowsAndArmsNothing() async {
    let sleeper = TimerSleeper()
    let sleep = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await sleeper.sleep(milliseconds: 3_600_000)
    }
    await #expect(throws: CancellationError.self) { try await sleep.value }
    #expect(sleeper.liveTimers == 0)
  }

  @Test func aSleepThatRunsOutReturnsAndReleasesItsTimer() async throws {
    let sleeper = TimerSleeper()
    try await sleeper.sleep(milliseconds: 1)
    #expect(sleeper.liveTimers == 0)
  }
}
