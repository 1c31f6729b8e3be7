import CEpoll
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Something for an event-loop thread to run: a closure, or a task's job (kept as it is, so
/// handing a job over allocates nothing).
public enum LoopWork: Sendable {
  case closure(@Sendable () -> Void)
  case job(UnownedJob)
}

/// The work other threads hand to one event-loop thread (the HTTP server's loops and the HTTP
/// client's loop alike): a list under a lock, and an eventfd the loop waits on in `epoll_wait`
/// beside its sockets.
///
/// A sender writes to the eventfd only when no wake-up is pending already, and outside the lock:
/// a system call under it would keep the loop thread, which takes the lock as soon as it wakes,
/// spinning for it. Work is only ever added with a wake-up pending, so the loop finds all of it
/// by looking at that flag.
public final class LoopInbox: Sendable {
  private struct State {
    var work: [LoopWork] = []
    var stopped = false
    /// The loop will look at the inbox before it waits again (woken through the eventfd, or
    /// told so by the one who added work without writing to it).
    var wakePending = false
  }

  /// The eventfd to register with the loop's epoll (readable when a wake-up was written). It
  /// lives as long as this object: a sender may still write to it after the loop has ended.
  public let wakeFD: Int32
  private let state = Mutex(State())

  /// An inbox with its eventfd; nil when the system gives no eventfd.
  public init?() {
    wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
    if wakeFD < 0 { return nil }
  }

  deinit { close(wakeFD) }

  /// Adds `work`; false once the inbox has stopped. Unless `writingWakeUp` is false (the loop
  /// thread adding work for itself, which it looks for before it waits again), the loop is woken
  /// from `epoll_wait` when no wake-up is pending already.
  public func put(_ work: LoopWork, writingWakeUp: Bool = true) -> Bool {
    let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
      if state.stopped { return (false, false) }
      state.work.append(work)
      if state.wakePending { return (true, false) }
      state.wakePending = true
      return (true, true)
    }
    if wake && writingWakeUp { writeWakeUp() }
    return accepted
  }

  /// Swaps what was added since the last take into `work` (which must be empty; both lists keep
  /// their storage): `found` when there was any, and whether the inbox has stopped.
  public func take(into work: inout [LoopWork]) -> (found: Bool, stopped: Bool) {
    state.withLock { state in
      guard state.wakePending else { return (false, state.stopped) }
      state.wakePending = false
      swap(&work, &state.work)
      return (true, state.stopped)
    }
  }

  /// Whether work was added since the last take.
  public var hasWork: Bool { state.withLock { $0.wakePending } }

  /// Refuses further work and wakes the loop once, so it sees the stop; what was added before
  /// is still there to take.
  public func stop() {
    let wake = state.withLock { state -> Bool in
      guard !state.stopped else { return false }
      state.stopped = true
      return true
    }
    if wake { writeWakeUp() }
  }

  /// Reads the eventfd after `epoll_wait` reported it readable.
  public func consumeWakeUp() {
    var value: UInt64 = 0
    _ = read(wakeFD, &value, 8)
  }

  private func writeWakeUp() {
    var one: UInt64 = 1
    _ = write(wakeFD, &one, 8)
  }
}

extension LoopWork {
  /// Runs the closure, or the job on `executor`.
  public func run(on executor: UnownedTaskExecutor) {
    switch self {
    case .closure(let closure): closure()
    case .job(let job): job.runSynchronously(on: executor)
    }
  }
}
