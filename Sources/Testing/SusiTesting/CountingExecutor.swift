import Dispatch
import Synchronization

/// A task executor that runs its jobs on a serial queue of its own and counts them: tests give
/// it as the executor a runner or session prefers and check that their jobs ran there.
public final class CountingExecutor: TaskExecutor {
  private let enqueued = Atomic(0)
  private let queue: DispatchQueue

  /// The jobs enqueued so far.
  public var jobs: Int { enqueued.load(ordering: .relaxed) }

  public init(label: String = "susi-test-executor") {
    queue = DispatchQueue(label: label)
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    enqueued.add(1, ordering: .relaxed)
    let executor = asUnownedTaskExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }
}
