import CEpoll
import Glibc
import SusiClock
import SusiTLS
import Synchronization

/// One thread running an epoll loop over its share of the connections.
///
/// It is also a `TaskExecutor`: handler tasks are started with this loop as their executor
/// preference, so a handler that does not hop elsewhere runs start to finish on the loop thread,
/// with no thread switch between reading the request and writing the response. Everything
/// mutable in here, and every `HTTPConnection` it owns, is touched only on the loop thread;
/// other threads talk to it through `execute(_:)`, which queues work and wakes the loop.
final class EventLoop: TaskExecutor, @unchecked Sendable {
  private enum Work {
    case job(UnownedJob)
    case closure(@Sendable () -> Void)
  }

  private struct Inbox {
    var work: [Work] = []
    var stopped = false
    /// A wake-up is written and not yet consumed, so further work needs no second write.
    var wakePending = false
  }

  private static let wakeKey = UInt64.max
  private static let listenerKey = UInt64.max - 1
  private static let maxEvents: Int32 = 256
  private static let readBufferSize = 64 * 1024

  let index: Int
  let configuration: HTTPServer.Configuration
  let handler: any HTTPHandler
  private let openConnections: OpenConnections
  private let onDrained: @Sendable () -> Void
  private let epollFD: Int32
  private let wakeFD: Int32
  private let inbox = Mutex(Inbox())

  // Loop-thread state.
  private var threadID = pthread_t()
  private var peers: [EventLoop] = []
  private var nextPeer = 0
  private var listener: Int32 = -1
  private var listenerPausedUntil: Duration?
  private var local: [Work] = []
  private var connections: [UInt64: HTTPConnection] = [:]
  private var nextConnectionID: UInt64 = 1
  private var nextDeadlineCheck: Duration?
  private var shutdownDeadline: Duration?
  private var isShuttingDown = false
  private var reportedDrained = false
  private var liveTasks = 0
  private var barriersArmed: [CheckedContinuation<Void, Never>] = []
  private var barriersFiring: [CheckedContinuation<Void, Never>] = []
  private var date = HTTPDate()
  /// The clock's time at the start of the current loop turn.
  private(set) var now: Duration
  let readBuffer: UnsafeMutableRawBufferPointer

  init(
    index: Int, configuration: HTTPServer.Configuration, handler: any HTTPHandler,
    openConnections: OpenConnections, onDrained: @escaping @Sendable () -> Void
  ) throws {
    self.index = index
    self.configuration = configuration
    self.handler = handler
    self.openConnections = openConnections
    self.onDrained = onDrained
    self.now = configuration.clock.monotonicTime()
    epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
    guard epollFD >= 0 else { throw HTTPServerError.systemCall("epoll_create1") }
    wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
    guard wakeFD >= 0 else {
      let error = HTTPServerError.systemCall("eventfd")
      close(epollFD)
      throw error
    }
    readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
    register(fd: wakeFD, key: Self.wakeKey, events: EPOLLIN.rawValue)
  }

  deinit { readBuffer.deallocate() }

  // MARK: - Starting

  /// Makes this loop accept connections on `fd` and spread them over `peers` (itself included).
  func adoptListener(_ fd: Int32, peers: [EventLoop]) {
    listener = fd
    self.peers = peers
    register(fd: fd, key: Self.listenerKey, events: EPOLLIN.rawValue)
  }

  /// Starts the loop's thread; returns once the thread runs.
  func startThread() throws {
    let started = StartFlag()
    let box = Unmanaged.passRetained(StartBox(loop: self, started: started))
    var thread = pthread_t()
    let result = pthread_create(
      &thread, nil,
      { argument in
        let box = Unmanaged<StartBox>.fromOpaque(argument!).takeRetainedValue()
        box.loop.run(announcing: box.started)
        return nil
      }, box.toOpaque())
    guard result == 0 else {
      box.release()
      errno = result
      throw HTTPServerError.systemCall("pthread_create")
    }
    pthread_detach(thread)
    while !started.isSet { sched_yield() }
  }

  private final class StartFlag: Sendable {
    private let flag = Atomic(false)
    func set() { flag.store(true, ordering: .releasing) }
    var isSet: Bool { flag.load(ordering: .acquiring) }
  }

  private final class StartBox: @unchecked Sendable {
    let loop: EventLoop
    let started: StartFlag
    init(loop: EventLoop, started: StartFlag) {
      self.loop = loop
      self.started = started
    }
  }

  // MARK: - Cross-thread entry points

  private var isOnLoopThread: Bool { pthread_equal(pthread_self(), threadID) != 0 }

  /// Runs `work` on the loop thread soon; false when the loop has stopped.
  @discardableResult
  func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
    inbox.withLock { inbox in
      if inbox.stopped { return false }
      inbox.work.append(.closure(work))
      wake(&inbox)
      return true
    }
  }

  /// Runs `work` now when called on the loop thread, otherwise queues it.
  func runOnLoop(_ work: @escaping @Sendable () -> Void) {
    if isOnLoopThread { work() } else { execute(work) }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    if isOnLoopThread {
      local.append(.job(job))
      return
    }
    let accepted = inbox.withLock { inbox in
      if inbox.stopped { return false }
      inbox.work.append(.job(job))
      wake(&inbox)
      return true
    }
    if !accepted {
      // A task outlived the loop (its handler ignored cancellation); let it finish elsewhere.
      globalConcurrentExecutor.enqueue(job)
    }
  }

  /// Wakes the loop from `epoll_wait`. Called under the inbox lock, so it never writes to the
  /// descriptor after `stop()` (which takes the same lock) has closed it.
  private func wake(_ inbox: inout Inbox) {
    if inbox.wakePending { return }
    inbox.wakePending = true
    var one: UInt64 = 1
    _ = write(wakeFD, &one, 8)
  }

  /// Returns after the loop has finished one whole turn begun after this call: it has read what
  /// was already sent to it, checked its deadlines, and done what they asked.
  func settle() async {
    await withCheckedContinuation { continuation in
      let accepted = execute { self.barriersArmed.append(continuation) }
      if !accepted { continuation.resume() }
    }
  }

  /// Begins a graceful shutdown of this loop's share of the server.
  func beginShutdown() {
    execute { self.shutDown() }
  }

  // MARK: - The loop

  private func run(announcing started: StartFlag) {
    threadID = pthread_self()
    susi_name_current_thread("susi-http-\(index)")
    started.set()
    let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(Self.maxEvents))
    defer { events.deallocate() }
    while true {
      let count = epoll_wait(epollFD, events, Self.maxEvents, pollTimeout())
      now = configuration.clock.monotonicTime()
      if count > 0 {
        for index in 0..<Int(count) {
          handle(events[index])
        }
      }
      runWork()
      checkDeadlinesIfDue()
      fireBarriers()
      if reportedDrained && liveTasks == 0 && local.isEmpty && barriersArmed.isEmpty
        && barriersFiring.isEmpty
      {
        break
      }
    }
    stop()
  }

  private func pollTimeout() -> Int32 {
    if !local.isEmpty || !barriersFiring.isEmpty { return 0 }
    guard let nextDeadlineCheck else { return -1 }
    let remaining = nextDeadlineCheck - configuration.clock.monotonicTime()
    if remaining <= .zero { return 0 }
    let (seconds, attoseconds) = remaining.components
    let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1
    return Int32(min(milliseconds, 60_000))
  }

  private func handle(_ event: epoll_event) {
    let key = event.data.u64
    if key == Self.wakeKey {
      var value: UInt64 = 0
      _ = read(wakeFD, &value, 8)
    } else if key == Self.listenerKey {
      acceptConnections()
    } else if let connection = connections[key] {
      connection.handle(events: event.events, now: now)
    }
  }

  private func runWork() {
    let incoming = inbox.withLock { inbox -> [Work] in
      inbox.wakePending = false
      let work = inbox.work
      inbox.work = []
      return work
    }
    var batch = local
    local = []
    batch.append(contentsOf: incoming)
    let executor = asUnownedTaskExecutor()
    for work in batch {
      switch work {
      case .job(let job): job.runSynchronously(on: executor)
      case .closure(let closure): closure()
      }
    }
  }

  private func fireBarriers() {
    let firing = barriersFiring
    barriersFiring = barriersArmed
    barriersArmed = []
    for barrier in firing { barrier.resume() }
  }

  private func stop() {
    let leftover = inbox.withLock { inbox -> [Work] in
      inbox.stopped = true
      let work = inbox.work
      inbox.work = []
      return work
    }
    for work in leftover {
      switch work {
      case .job(let job): globalConcurrentExecutor.enqueue(job)
      case .closure: break
      }
    }
    for barrier in barriersArmed + barriersFiring { barrier.resume() }
    close(wakeFD)
    close(epollFD)
  }

  // MARK: - Deadlines

  /// Makes sure the loop wakes up by `deadline` to check it.
  func noteDeadline(_ deadline: Duration?) {
    guard let deadline else { return }
    if let current = nextDeadlineCheck, current <= deadline { return }
    nextDeadlineCheck = deadline
  }

  private func checkDeadlinesIfDue() {
    let due = nextDeadlineCheck.map { now >= $0 } ?? false
    guard due || !barriersFiring.isEmpty else { return }
    nextDeadlineCheck = nil
    if let paused = listenerPausedUntil {
      if now >= paused { resumeAccepting() } else { noteDeadline(paused) }
    }
    if let shutdownDeadline {
      if now >= shutdownDeadline {
        for connection in Array(connections.values) { connection.forceClose() }
      } else {
        noteDeadline(shutdownDeadline)
      }
    }
    for connection in Array(connections.values) {
      connection.timePassed(now: now)
      if !connection.isClosed { noteDeadline(connection.nextDeadline) }
    }
  }

  // MARK: - Connections

  @discardableResult
  private func register(fd: Int32, key: UInt64, events: UInt32) -> Bool {
    var event = epoll_event()
    event.events = events
    event.data.u64 = key
    return epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0
  }

  /// Changes which readiness events the loop reports for a connection.
  func updateInterest(fd: Int32, key: UInt64, events: UInt32) {
    var event = epoll_event()
    event.events = events
    event.data.u64 = key
    epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
  }

  private func acceptConnections() {
    for _ in 0..<64 {
      var address = sockaddr_storage()
      var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
      let fd = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          susi_accept4(
            listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        }
      }
      if fd < 0 {
        switch errno {
        case EINTR, ECONNABORTED: continue
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
          // Out of descriptors: stop accepting for a moment instead of spinning on the listener.
          pauseAccepting()
          return
        default: return
        }
      }
      let remote = Socket.addressText(address)
      guard let admission = openConnections.admit(address: remote, limits: configuration.limits)
      else {
        Socket.refuse(fd)
        continue
      }
      Socket.disableDelay(fd)
      let priorityOnly = admission == .priorityOnly
      let peer = peers[nextPeer % peers.count]
      nextPeer &+= 1
      if peer === self {
        adopt(fd: fd, remoteAddress: remote, priorityOnly: priorityOnly)
      } else if !peer.execute({
        peer.adopt(fd: fd, remoteAddress: remote, priorityOnly: priorityOnly)
      }) {
        close(fd)
        openConnections.release(address: remote)
      }
    }
  }

  private func pauseAccepting() {
    updateInterest(fd: listener, key: Self.listenerKey, events: 0)
    listenerPausedUntil = now + .milliseconds(100)
    noteDeadline(listenerPausedUntil)
  }

  private func resumeAccepting() {
    listenerPausedUntil = nil
    if listener >= 0 {
      updateInterest(fd: listener, key: Self.listenerKey, events: EPOLLIN.rawValue)
    }
  }

  private func adopt(fd: Int32, remoteAddress: String, priorityOnly: Bool) {
    if isShuttingDown {
      close(fd)
      openConnections.release(address: remoteAddress)
      return
    }
    let key = nextConnectionID
    nextConnectionID += 1
    let handler = self.handler
    var priorityCheck: (@Sendable (HTTPRequest) -> Bool)? = nil
    if priorityOnly { priorityCheck = { request in handler.isPriority(request) } }
    let machine = HTTPConnectionStateMachine(
      limits: configuration.limits, timeouts: configuration.timeouts,
      remoteAddress: remoteAddress, now: now, priorityCheck: priorityCheck)
    var tls: TLSSession?
    if let identity = configuration.tls {
      guard let session = try? TLSSession(server: identity.context) else {
        close(fd)
        openConnections.release(address: remoteAddress)
        return
      }
      tls = session
    }
    let connection = HTTPConnection(
      key: key, fd: fd, loop: self, remoteAddress: remoteAddress, machine: machine, tls: tls)
    guard register(fd: fd, key: key, events: connection.interest) else {
      close(fd)
      openConnections.release(address: remoteAddress)
      return
    }
    connections[key] = connection
    noteDeadline(connection.nextDeadline)
  }

  /// Called by a connection once it has closed its socket.
  func connectionClosed(_ connection: HTTPConnection) {
    connections[connection.key] = nil
    openConnections.release(address: connection.remoteAddress)
    reportIfDrained()
  }

  /// The `Date` header for responses sent in this turn.
  func currentDate() -> String { date.current() }

  /// Counts tasks that may still run jobs on this loop, so it does not stop under them.
  func taskStarted() { liveTasks += 1 }
  func taskEnded() { liveTasks -= 1 }

  // MARK: - Shutdown

  private func shutDown() {
    guard !isShuttingDown else { return }
    isShuttingDown = true
    if listener >= 0 {
      close(listener)
      listener = -1
    }
    shutdownDeadline = now + configuration.timeouts.shutdownGrace
    noteDeadline(shutdownDeadline)
    for connection in Array(connections.values) { connection.shutdownRequested(now: now) }
    reportIfDrained()
  }

  private func reportIfDrained() {
    guard isShuttingDown, connections.isEmpty, !reportedDrained else { return }
    reportedDrained = true
    onDrained()
  }
}

/// The open connections across all loops, in all and per client address, so the limits hold
/// server-wide.
final class OpenConnections: Sendable {
  /// How a connection that got a slot may be used.
  enum Admission: Equatable {
    case regular
    /// Opened in the reserve: only requests the handler calls priority are served.
    case priorityOnly
  }

  private struct Counts {
    var total = 0
    var perAddress: [String: Int] = [:]
  }

  private let counts = Mutex(Counts())

  /// Takes a slot for a connection from `address`; nil when every slot is taken or the address
  /// has its share.
  func admit(address: String, limits: HTTPLimits) -> Admission? {
    counts.withLock { counts in
      guard counts.total < limits.maxConnections else { return nil }
      let mine = counts.perAddress[address, default: 0]
      if limits.maxConnectionsPerAddress > 0 && mine >= limits.maxConnectionsPerAddress {
        return nil
      }
      counts.total += 1
      counts.perAddress[address] = mine + 1
      let softLimit = limits.maxConnections - limits.reservedConnections
      return counts.total > softLimit ? .priorityOnly : .regular
    }
  }

  func release(address: String) {
    counts.withLock { counts in
      counts.total -= 1
      let left = counts.perAddress[address, default: 1] - 1
      counts.perAddress[address] = left > 0 ? left : nil
    }
  }

  var current: Int { counts.withLock { $0.total } }
}
