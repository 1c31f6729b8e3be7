import Dispatch
import SusiCore
import SusiJSON
import SusiJSONLines
import SusiStore
import Synchronization
import Testing

/// A session runs where the runner's effects run, when the runner prefers one executor (the
/// HTTP client's event loop): a chat's intent, request, reply and result then share one thread.
@Suite(.timeLimit(.minutes(1)))
struct JSONLExecutorTests {
  /// Runs jobs on a queue of its own and counts them.
  final class CountingExecutor: TaskExecutor {
    let jobs = Atomic(0)
    let queue = DispatchQueue(label: "susi-jsonl-test-executor")

    func enqueue(_ job: consuming ExecutorJob) {
      let job = UnownedJob(job)
      jobs.add(1, ordering: .relaxed)
      let executor = asUnownedTaskExecutor()
      queue.async { job.runSynchronously(on: executor) }
    }
  }

  @Test func theSessionRunsOnTheExecutorTheRunnerPrefers() async throws {
    let executor = CountingExecutor()
    let harness = JSONLHarness(preferredExecutor: executor)
    let text = (1...20).map { #"{"type":"sendMessage","payload":{"query":"q\#($0)"},"id":\#($0)}"# }
      .joined(separator: "\n")
    let summary = await harness.run(text + "\n")
    #expect(summary.accepted == 20 && summary.succeeded)
    // The runner here answers on tasks of its own: every job on the executor is the session's.
    #expect(executor.jobs.load(ordering: .relaxed) > 0)
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
