import Synchronization
import Testing

@testable import SusiText

/// What the chat prints on its own (what another susi asked, then SUSI's answer to it) comes out
/// in the order the events were logged, however the pieces are scheduled.
@Suite struct BackgroundWorkTests {
  @Test func piecesRunOneAfterAnotherInTheOrderTheyWereStarted() async {
    let work = BackgroundWork()
    let done = Mutex<[Int]>([])
    let running = Mutex(0)
    for index in 0..<200 {
      work.start {
        let overlapping = running.withLock { count -> Bool in
          count += 1
          return count > 1
        }
        // Earlier pieces take longer, so pieces that ran side by side would finish out of order.
        for _ in 0..<(200 - index) % 7 { await Task.yield() }
        running.withLock { $0 -= 1 }
        done.withLock { $0.append(overlapping ? -1 : index) }
      }
    }
    await work.waitUntilIdle()
    #expect(done.withLock { $0 } == Array(0..<200))
    #expect(work.isIdle)
  }
}
