import SusiClock
import Synchronization
import Testing

@Suite struct ManualTimeSourceTests {
  @Test func wallAndMonotonicTimeMoveTogether() async {
    let time = ManualTimeSource(millisecondsSince1970: 1_000_000)
    #expect(time.monotonicTime() == .zero)
    await time.advance(by: .milliseconds(2_500))
    #expect(time.millisecondsSince1970() == 1_002_500)
    #expect(time.monotonicTime() == .milliseconds(2_500))
  }

  @Test func settingTheWallClockLeavesMonotonicTimeAndSleepersAlone() async throws {
    let time = ManualTimeSource(millisecondsSince1970: 1_000_000)
    let sleep = Task { try await time.sleep(milliseconds: 100) }
    await time.waitForSleepers(count: 1)
    time.setWallClock(millisecondsSince1970: 5_000)
    #expect(time.millisecondsSince1970() == 5_000)
    #expect(time.monotonicTime() == .zero)
    #expect(time.pendingSleeps == [100])
    await time.advance(by: .milliseconds(100))
    try await sleep.value
    #expect(time.millisecondsSince1970() == 5_100)
  }

  @Test func sleepersWakeOnlyOnceTheirDeadlinePasses() async throws {
    let time = ManualTimeSource()
    let delays: [Int64] = [300, 100, 200]
    let sleeps = delays.map { milliseconds in
      Task { try await time.sleep(milliseconds: milliseconds) }
    }
    await time.waitForSleepers(count: 3)
    #expect(time.pendingSleeps == [100, 200, 300])
    await time.advance(by: .milliseconds(99))
    #expect(time.pendingSleeps == [1, 101, 201])
    await time.advance(by: .milliseconds(101))
    #expect(time.pendingSleeps == [100])
    try await sleeps[1].value
    try await sleeps[2].value
    await time.advance(by: .milliseconds(100))
    try await sleeps[0].value
    #expect(time.pendingSleeps.isEmpty)
    #expect(time.requestedSleeps.sorted() == [100, 200, 300])
  }

  @Test func aCancelledSleepThrowsAndLeavesNoSleeper() async {
    let time = ManualTimeSource()
    let sleep = Task { try await time.sleep(milliseconds: 1_000) }
    await time.waitForSleepers(count: 1)
    sleep.cancel()
    await #expect(throws: CancellationError.self) { try await sleep.value }
    #expect(time.pendingSleeps.isEmpty)
  }

  @Test func observersSettleBeforeAndAfterTimeMoves() async {
    let time = ManualTimeSource()
    let seen = SeenTimes()
    time.addObserver { seen.record(time.monotonicTime()) }
    await time.advance(by: .seconds(10))
    #expect(seen.times == [.zero, .seconds(10)])
  }

  @Test func theSystemTimeSourceReadsTheMachinesClocks() async throws {
    let time = SystemTimeSource()
    // 2020-01-01T00:00:00Z: any machine running this is later.
    #expect(time.millisecondsSince1970() > 1_577_836_800_000)
    let before = time.monotonicTime()
    try await time.sleep(milliseconds: 1)
    #expect(time.monotonicTime() > before)
  }
}

/// The times an observer was called at.
private final class SeenTimes: Sendable {
  private let list = Mutex<[Duration]>([])
  func record(_ time: Duration) { list.withLock { $0.append(time) } }
  var times: [Duration] { list.withLock { $0 } }
}
