import Dispatch
import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiRunner
import SusiTesting
import Synchronization
import Testing

/// The runner's effects run where the transport prefers: with the socket transport, on the
/// client's event loop, so a reply is handled by the thread that read it.
@Suite(.hangLimit)
struct RunnerExecutorTests {
  /// A fake transport that names an executor for the tasks sending through it.
  struct PreferringTransport: HTTPTransport {
    let inner: FakeTransport
    let executor: CountingExecutor

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
      try await inner.send(request)
    }

    var preferredTaskExecutor: (any TaskExecutor)? { executor }
  }

  @Test func effectsRunOnTheExecutorTheTransportPrefers() async {
    let executor = CountingExecutor()
    let transport = PreferringTransport(
      inner: FakeTransport { _ in .json(#"{"accepted":true,"groups":["Knowledge"]}"#) },
      executor: executor)
    let harness = Harness(
      configure: { $0.transport = transport }, respond: { _ in .json("{}") })
    let result = await harness.run(.fetchGroups(server: "embedded", language: "en"))
    #expect(result == .groupsLoaded(.init(groups: ["Knowledge"])))
    #expect(executor.jobs > 0)
  }
}
