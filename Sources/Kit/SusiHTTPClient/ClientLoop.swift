import CEpoll
import Dispatch
import SusiHTTPTypes
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One thread waiting in `epoll_wait` for every connection of a `SocketTransport`: however
/// many requests are under way, they share this thread, and while all of them wait it sleeps
/// until a socket is ready, work arrives or the nearest deadline passes.
///
/// Everything registered here (the handlers, and the `ClientEngine` that owns the connections)
/// is touched only on the loop thread; other threads hand it work through `execute(_:)`, which
/// queues the work and wakes the loop through an eventfd.
final class ClientLoop: @unchecked Sendable {
  /// What runs when a watched descriptor is ready, given the events that occurred. A struct
  /// around the closure: a bare closure kept in a dictionary or an optional is stored in the
  /// most general form, so each store and each read made a new wrapper (two allocations an
  /// exchange, two more a connection's return to the pool).
  struct SocketHandler {
    let handle: (UInt32) -> Void
  }

  private static let wakeKey = UInt64.max
  /// How many times a turn runs the work queued meanwhile before it looks at the sockets again.
  private static let workRounds = 4
  private let epollFD: Int32
  private let inbox: LoopInbox
  private let thread = Mutex<pthread_t?>(nil)
  /// The loop thread's `pthread_self()`, set by that thread when it starts (0 before).
  private let loopThreadID = Atomic<UInt>(0)

  // Loop-thread state.
  private var handlers: [Int32: SocketHandler] = [:]
  private var interests: [Int32: UInt32] = [:]
  /// Runs after each turn's events and work; returns the next deadline (monotonic seconds), if
  /// any, so the loop wakes for it.
  var turn: (() -> Double?)?

  /// A loop with its thread running.
  init() throws(TransportError) {
    epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
    guard epollFD >= 0, let inbox = LoopInbox() else {
      if epollFD >= 0 { close(epollFD) }
      throw .failed("the HTTP client could not create its event loop")
    }
    self.inbox = inbox
    var event = epoll_event()
    event.events = EPOLLIN.rawValue
    event.data.u64 = Self.wakeKey
    epoll_ctl(epollFD, EPOLL_CTL_ADD, inbox.wakeFD, &event)
    // The thread holds the loop until `stop()` ends it.
    let box = Unmanaged.passRetained(self)
    var id = pthread_t()
    let result = pthread_create(
      &id, nil,
      { argument in
        let loop = Unmanaged<ClientLoop>.fromOpaque(argument!).takeRetainedValue()
        loop.run()
        return nil
      }, box.toOpaque())
    guard result == 0 else {
      box.release()
      close(epollFD)
      throw .failed("the HTTP client could not start its event loop thread")
    }
    pthread_detach(id)
    thread.withLock { $0 = id }
  }

  /// Runs `work` on the loop thread soon; false when the loop has stopped.
  @discardableResult
  func execute(_ work: @escaping @Sendable () -> Void) -> Bool { queue(.closure(work)) }

  /// The loop thread queuing work for itself writes no wake-up: it looks at the inbox before it
  /// waits again.
  private func queue(_ work: LoopWork) -> Bool {
    inbox.put(work, writingWakeUp: !isLoopThread)
  }

  /// Whether the caller runs on the loop thread.
  var isLoopThread: Bool {
    let id = loopThreadID.load(ordering: .relaxed)
    return id != 0 && pthread_equal(pthread_self(), pthread_t(id)) != 0
  }

  /// Ends the loop after the work queued so far; its thread then closes the epoll descriptor
  /// (the eventfd goes with the inbox).
  func stop() { inbox.stop() }

  /// CPU time the loop thread used so far, in seconds (for tests and benchmarks).
  var cpuSeconds: Double {
    guard let id = thread.withLock({ $0 }) else { return 0 }
    var clock = clockid_t()
    guard pthread_getcpuclockid(id, &clock) == 0 else { return 0 }
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  // MARK: - Loop-thread API

  /// Watches `fd` for `events` (`EPOLLIN`, `EPOLLOUT`; level-triggered), calling `handler`
  /// with the events that occurred.
  func watch(_ fd: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) {
    handlers[fd] = SocketHandler(handle: handler)
    interests[fd] = events
    var event = epoll_event()
    event.events = events
    event.data.u64 = UInt64(UInt32(bitPattern: fd))
    epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
  }

  /// Watches `fd` with `handler` from now on; a descriptor watched already keeps its
  /// registration and `events` (no system call), so a kept-alive connection moving between
  /// exchanges costs none.
  func rewatch(_ fd: Int32, handler: SocketHandler) {
    guard handlers[fd] != nil else { return watch(fd, events: 0, handler: handler.handle) }
    handlers[fd] = handler
  }

  /// Changes what `fd` is watched for.
  func change(_ fd: Int32, events: UInt32) {
    guard let current = interests[fd], current != events else { return }
    interests[fd] = events
    var event = epoll_event()
    event.events = events
    event.data.u64 = UInt64(UInt32(bitPattern: fd))
    epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
  }

  /// Runs the handler of `fd` at once when the socket is ready for what it is watched for:
  /// a last look before a deadline ends an exchange, so a thread that was kept from running
  /// does not time out what already arrived. False when it is not ready.
  func handleIfReady(_ fd: Int32) -> Bool {
    guard let events = interests[fd], events != 0, let handler = handlers[fd] else { return false }
    var entry = pollfd(fd: fd, events: Int16(truncatingIfNeeded: events), revents: 0)
    guard poll(&entry, 1, 0) > 0 else { return false }
    handler.handle(UInt32(UInt16(bitPattern: entry.revents)))
    return true
  }

  /// Stops watching `fd` (call before closing it).
  func unwatch(_ fd: Int32) {
    guard handlers.removeValue(forKey: fd) != nil else { return }
    interests[fd] = nil
    epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
  }

  // MARK: - The loop

  private func run() {
    susi_name_current_thread("susi-http-client")
    loopThreadID.store(UInt(pthread_self()), ordering: .relaxed)
    let capacity: Int32 = 64
    let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(capacity))
    defer { events.deallocate() }
    var timeout: Int32 = -1
    // The queued work is swapped out under the lock; both arrays keep their storage.
    var work: [LoopWork] = []
    let executor = asUnownedTaskExecutor()
    while true {
      let count = epoll_wait(epollFD, events, capacity, timeout)
      if count > 0 {
        for index in 0..<Int(count) {
          let key = events[index].data.u64
          if key == Self.wakeKey {
            inbox.consumeWakeUp()
            continue
          }
          let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: key))
          // A handler earlier in this turn may have closed it.
          handlers[fd]?.handle(events[index].events)
        }
      }
      // Work the loop queues for itself while it runs (a task it resumed, the next effect a
      // finished one launched) runs in the same turn, for a few rounds, rather than after a
      // look at the sockets each: a chat's reply, its result and the next request then cost one
      // `epoll_wait` rather than three.
      var stopped = false
      for _ in 0..<Self.workRounds {
        let (found, stop) = inbox.take(into: &work)
        stopped = stop
        for item in work { item.run(on: executor) }
        work.removeAll(keepingCapacity: true)
        if !found || stopped { break }
      }
      if stopped { break }
      if let deadline = turn?() {
        let milliseconds = (deadline - Self.now()) * 1000
        timeout = milliseconds <= 0 ? 0 : Int32(min(milliseconds.rounded(.up), 3_600_000))
      } else {
        timeout = -1
      }
      // Work the loop queued for itself (a task it resumed) runs after a look at the sockets
      // that does not wait.
      if inbox.hasWork { timeout = 0 }
    }
    for fd in handlers.keys { epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil) }
    handlers.removeAll()
    turn = nil
    close(epollFD)
    // A later thread may be given the same id.
    loopThreadID.store(0, ordering: .relaxed)
  }

  /// Monotonic seconds.
  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}

/// Tasks that prefer the loop (`Task(executorPreference:)`) run their nonisolated parts on the
/// loop thread: a reply's continuation resumes there in the same turn that read the reply, with
/// no other thread woken to run it. Such work must not block: every connection waits for it.
extension ClientLoop: TaskExecutor {
  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    if queue(.job(job)) { return }
    // The loop has stopped: the job still runs, on the shared pool.
    let executor = asUnownedTaskExecutor()
    DispatchQueue.global().async { job.runSynchronously(on: executor) }
  }
}
