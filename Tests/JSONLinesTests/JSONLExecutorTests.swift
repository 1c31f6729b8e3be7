import Dispatch
import SusiCore
import SusiHTTPTesting
import SusiJSON
import SusiJSONLines
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// A session runs where the runner's effects run, when the runner prefers one executor (the
/// HTTP client's event loop): a chat's intent, request, reply and result then share one thread.
@Suite(.hangLimit)
struct JSONLExecutorTests {
  @Test func theSessionRunsOnTheExecutorTheRunnerPrefers() async throws {
    let executor = CountingExecutor()
    let harness = JSONLHarness(preferredExecutor: executor)
    let text = (1...20).map { #"{"type":"sendMessage","payload":{"query":"q\#($0)"},"id":\#($0)}"# }
      .joined(separator: "\n")
    let summary = await harness.run(text + "\n")
    #expect(summary.accepted == 20 && summary.succeeded)
    // The runner here answers on tasks of its own: every job on the executor is the session's.
    #expect(executor.jobs > 0)
    let answers = try harness.transcript().events.filter { $0["type"] == "messageReceived" }
    #expect(answers.count == 20)
  }

  @Test func withoutAPreferenceTheSessionRunsOnThePool() async {
    let harness = JSONLHarness()
    #expect(harness.store.preferredTaskExecutor == nil)
    let summary = await harness.run(
      #"{"type":"sendMessage","payload":{"query":"hi"},"id":1}"# + "\n")
    #expect(summary.accepted == 1 && summary.succeeded)
  }
}
