import Foundation
import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiRunner
import SusiServer
import SusiStore
import Testing

/// Cancelled requests on the real network: each still ends, at once, with `cancelled`, so the
/// runner delivers its result and can shut down.
@Suite(.hangLimit)
struct EndToEndCancellationTests {
  /// A request whose task is cancelled before it reaches the transport ends at once with
  /// `cancelled`, however the cancellation races the transport's own start.
  @Test func aRequestCancelledBeforeItStartsEndsAtOnce() async throws {
    let server = try await EmbeddedServer.start(ServerConfiguration())
    let transport = SocketTransport()
    let request = TransportRequest(url: server.baseURLString + "/cms/getGroups.json")
    // Several at once, so the cancellation races the connection pool as it does in a busy
    // runner.
    for round in 1...40 {
      let calls = (0..<8).map { _ in
        Task { () -> String in
          withUnsafeCurrentTask { $0?.cancel() }
          do {
            _ = try await transport.send(request)
            return "a reply"
          } catch {
            return "\(error)"
          }
        }
      }
      var outcomes: [String] = []
      for call in calls {
        outcomes.append(await Self.outcome(of: call))
      }
      #expect(
        outcomes.allSatisfy { $0 == "\(TransportError.cancelled)" }, "round \(round): \(outcomes)")
      if outcomes.contains(where: { $0 != "\(TransportError.cancelled)" }) { break }
    }
    await server.stop()
  }

  /// A newer request for the same thing supersedes the older one; whichever way the race goes,
  /// each intent gets exactly one result and the newest one loads.
  @Test func supersededRequestsEndSupersededOrLoadedAndNothingHangs() async throws {
    let run = try await EndToEndRun.start()
    for _ in 0..<10 {
      async let older = run.send(.loadSkills(.init()))
      async let newer = run.send(.loadSkills(.init()))
      let (first, second) = try await (older, newer)
      for events in [first, second] {
        #expect(events.count == 2, "\(events.map(\.action.type))")
        switch events.last?.action {
        case .skillsLoaded?: break
        case .requestFailed(let failed)?: #expect(failed.error.kind == .superseded)
        default: Issue.record("unexpected result: \(events.map(\.action.type))")
        }
      }
      let newest = first[0].seq > second[0].seq ? first : second
      #expect(newest.last?.action.type == .skillsLoaded)
    }
    #expect(await run.store.state.inFlight.isEmpty)
    #expect(await run.store.state.skills.count == 22)
    try await run.finish(expectingTokens: false)
  }

  /// What `task` returned, or a note that it did not return within `hangLimitSeconds` (the
  /// task is then left behind, so a hang fails the test instead of stopping it).
  private static func outcome(of task: Task<String, Never>) async -> String {
    let (stream, continuation) = AsyncStream<String>.makeStream()
    let waiter = Task { continuation.yield(await task.value) }
    let timer = Task {
      try? await Task.sleep(for: .seconds(hangLimitSeconds))
      continuation.yield("no answer within \(hangLimitSeconds) s")
    }
    var iterator = stream.makeAsyncIterator()
    let first = await iterator.next() ?? "nothing"
    timer.cancel()
    waiter.cancel()
    continuation.finish()
    return first
  }
}
