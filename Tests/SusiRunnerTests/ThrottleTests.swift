import SusiClock
import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiRunner
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// The real SUSI server refuses a host that calls the same servlet again within its DoS window
/// (`503 your request frequency is too high`, before doing anything). Five quick chats against
/// a server with a 300 ms window must all be answered, whether the runner was told to pace or
/// learns it from the refusals.
@Suite(.hangLimit)
struct ThrottleTests {
  static let window: Int64 = 300

  /// A server, timed on the harness's clock, that refuses a call to a path within `window`
  /// of the last one it accepted; it records when it accepted each call.
  final class WindowedServer: Sendable {
    let clock: ManualTimeSource
    let accepted = Mutex<[Int64]>([])
    let refusals = Mutex(0)

    init(clock: ManualTimeSource) { self.clock = clock }

    func respond(_ request: TransportRequest) -> TransportResponse {
      let now = clock.now().milliseconds
      let accept = accepted.withLock { accepted -> Bool in
        if let last = accepted.last, now - last < ThrottleTests.window { return false }
        accepted.append(now)
        return true
      }
      guard accept else {
        refusals.withLock { $0 += 1 }
        return .jettyError(503, "your request frequency is too high")
      }
      return .json(
        #"{"query":"hi","answers":[{"data":[],"actions":[{"type":"answer","expression":"hello"}]}]}"#
      )
    }
  }

  static func fiveQuickChats(pacing: Int64) async -> (Harness, WindowedServer, [Action]) {
    let box = Mutex<WindowedServer?>(nil)
    let harness = Harness(
      configure: { $0.pacingMilliseconds = pacing },
      respond: { request in
        box.withLock { $0 }!.respond(request)
      })
    let server = WindowedServer(clock: harness.clock)
    box.withLock { $0 = server }
    for cause in 1...5 {
      harness.start(.chat(server: "embedded", query: "hi \(cause)", language: nil), cause: cause)
    }
    // Time moves only when every unfinished chat is asleep (pacing or backoff; the 30 s request
    // deadlines are left alone), to the soonest wake-up: the order of events is then fixed.
    let deadline = ContinuousClock.now + .seconds(hangLimitSeconds)
    while harness.results.all.count < 5 {
      guard ContinuousClock.now < deadline else {
        Issue.record("five chats did not finish within \(hangLimitSeconds) s")
        break
      }
      let waiting = harness.clock.pendingSleeps.filter { $0 < 30_000 }
      if waiting.count == 5 - harness.results.all.count, let soonest = waiting.first {
        await harness.clock.advance(by: .milliseconds(soonest))
      } else {
        await Task.yield()
      }
    }
    var results: [Action] = []
    for cause in 1...5 { results.append(await harness.results.next(for: cause)) }
    return (harness, server, results)
  }

  @Test func pacedChatsRespectTheWindowAndAreAllAnswered() async {
    let (harness, server, results) = await Self.fiveQuickChats(pacing: Self.window)
    #expect(results.allSatisfy { $0.failure == nil }, "\(results)")
    #expect(server.refusals.withLock { $0 } == 0)
    #expect(harness.transport.requests.count == 5)
    let times = server.accepted.withLock { $0 }
    #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= Self.window })
  }

  @Test func withoutPacingTheRefusalsAreRetriedAndTeachTheGap() async {
    let (_, server, results) = await Self.fiveQuickChats(pacing: 0)
    #expect(results.allSatisfy { $0.failure == nil }, "\(results)")
    #expect(server.accepted.withLock { $0.count } == 5)
    #expect(server.refusals.withLock { $0 } >= 1)
  }
}
