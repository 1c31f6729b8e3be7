import CEpoll
import Glibc
import SusiClock
import SusiHTTPTypes
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
  private let inbox: LoopInbox

  // Loop-thread state.
  private var threadID = pthread_t()
  private var peers: [EventLoop] = []
  private var nextPeer = 0
  private var listener: Int32 = -1
  private var listenerPausedUntil: Duration?
  private var local: [LoopWork] = []
  /// The work of the current turn, taken from `local` and the inbox; kept between turns (empty,
  /// as is `incoming`) so that no list is grown again every turn.
  private var running: [LoopWork] = []
  private var incoming: [LoopWork] = []
  private var connections: [UInt64: HTTPConnection] = [:]
  /// This loop's reserve connections, by their ticket (see `OpenConnections.Admission`).
  private var reserveTickets: [UInt64: UInt64] = [:]
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
    guard let inbox = LoopInbox() else {
      let error = HTTPServerError.systemCall("eventfd")
      close(epollFD)
      throw error
    }
    self.inbox = inbox
    readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
    register(fd: inbox.wakeFD, key: Self.wakeKey, events: EPOLLIN.rawValue)
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

  var isOnLoopThread: Bool { pthread_equal(pthread_self(), threadID) != 0 }

  /// Runs `work` on the loop thread soon; false when the loop has stopped.
  @discardableResult
  func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
    inbox.put(.closure(work))
  }

  /// Runs `work` on the loop thread in this turn's work, after what is running now; called on
  /// the loop thread.
  func runLater(_ work: @escaping @Sendable () -> Void) {
    local.append(.closure(work))
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
    if !inbox.put(.job(job)) {
      // A task outlived the loop (its handler ignored cancellation); let it finish elsewhere.
      globalConcurrentExecutor.enqueue(job)
    }
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
      inbox.consumeWakeUp()
    } else if key == Self.listenerKey {
      acceptConnections()
    } else if let connection = connections[key] {
      connection.handle(events: event.events, now: now)
    }
  }

  private func runWork() {
    // `local` takes the emptied list of the last turn; what runs now may add to it.
    swap(&running, &local)
    if inbox.take(into: &incoming).found {
      running.append(contentsOf: incoming)
      incoming.removeAll(keepingCapacity: true)
    }
    let executor = asUnownedTaskExecutor()
    for index in running.indices { running[index].run(on: executor) }
    running.removeAll(keepingCapacity: true)
  }

  private func fireBarriers() {
    let firing = barriersFiring
    barriersFiring = barriersArmed
    barriersArmed = []
    for barrier in firing { barrier.resume() }
  }

  private func stop() {
    inbox.stop()
    var leftover: [LoopWork] = []
    _ = inbox.take(into: &leftover)
    for work in leftover {
      switch work {
      case .job(let job): globalConcurrentExecutor.enqueue(job)
      case .closure: break
      }
    }
    for barrier in barriersArmed + barriersFiring { barrier.resume() }
    close(epollFD)
    // The loops of a server hold one another (this one among them) until they stop.
    peers = []
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
      let peer = peers[nextPeer % peers.count]
      guard
        let admitted = openConnections.admit(
          address: remote, limits: configuration.limits, loop: peer)
      else {
        Socket.refuse(fd, speaksTLS: configuration.tls != nil)
        continue
      }
      let (admission, evicted) = admitted
      nextPeer &+= 1
      if let evicted {
        // A reserve slot held by a connection that never showed a priority request goes to
        // this one (adopted after the eviction on its loop, whose work runs in order).
        let loop = evicted.loop
        loop.runOnLoop { loop.evict(ticket: evicted.ticket) }
      }
      Socket.disableDelay(fd)
      if peer === self {
        adopt(fd: fd, remoteAddress: remote, admission: admission)
      } else if !peer.execute({
        peer.adopt(fd: fd, remoteAddress: remote, admission: admission)
      }) {
        close(fd)
        openConnections.release(address: remote, admission: admission)
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

  private func adopt(fd: Int32, remoteAddress: String, admission: OpenConnections.Admission) {
    if isShuttingDown {
      close(fd)
      openConnections.release(address: remoteAddress, admission: admission)
      return
    }
    let key = nextConnectionID
    nextConnectionID += 1
    let handler = self.handler
    var priorityCheck: (@Sendable (HTTPRequest) -> Bool)? = nil
    if case .priorityOnly(let ticket) = admission {
      let openConnections = self.openConnections
      priorityCheck = { request in
        guard handler.isPriority(request) else { return false }
        // It has shown a priority request: its reserve slot is its own from now on.
        openConnections.keep(ticket)
        return true
      }
      reserveTickets[ticket] = key
    }
    let machine = HTTPConnectionStateMachine(
      limits: configuration.limits, timeouts: configuration.timeouts,
      remoteAddress: remoteAddress, now: now, priorityCheck: priorityCheck,
      loopbackUserID: configuration.identifiesLoopbackUsers ? LoopbackPeer.userID(of: fd) : nil)
    var tls: TLSSession?
    if let identity = configuration.tls {
      guard let session = try? TLSSession(server: identity.context) else {
        close(fd)
        if case .priorityOnly(let ticket) = admission { reserveTickets[ticket] = nil }
        openConnections.release(address: remoteAddress, admission: admission)
        return
      }
      tls = session
    }
    let connection = HTTPConnection(
      key: key, fd: fd, loop: self, remoteAddress: remoteAddress, admission: admission,
      machine: machine, tls: tls)
    guard register(fd: fd, key: key, events: connection.interest) else {
      close(fd)
      if case .priorityOnly(let ticket) = admission { reserveTickets[ticket] = nil }
      openConnections.release(address: remoteAddress, admission: admission)
      return
    }
    connections[key] = connection
    noteDeadline(connection.nextDeadline)
  }

  /// Closes the reserve connection `ticket` names, if it is still open (it was chosen to make
  /// room for a newer one: it has not shown a priority request).
  func evict(ticket: UInt64) {
    guard let key = reserveTickets[ticket], let connection = connections[key] else { return }
    connection.forceClose()
  }

  /// Called by a connection once it has closed its socket.
  func connectionClosed(_ connection: HTTPConnection) {
    connections[connection.key] = nil
    if case .priorityOnly(let ticket) = connection.admission { reserveTickets[ticket] = nil }
    openConnections.release(address: connection.remoteAddress, admission: connection.admission)
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
///
/// The reserve (the last `reservedConnections` slots) is for priority requests only. A
/// connection there that has not shown one yet (it may never send a request line) holds its
/// slot only until the server is full: then the next connection takes the slot of the oldest
/// such one, which is closed. So connections that never send a request cannot keep a health
/// check or an operator out; one that showed a priority request keeps its slot.
final class OpenConnections: Sendable {
  /// How a connection that got a slot may be used.
  enum Admission: Equatable, Sendable {
    case regular
    /// Opened in the reserve: only requests the handler calls priority are served. The ticket
    /// names it while it may still be evicted.
    case priorityOnly(ticket: UInt64)
  }

  /// A reserve connection to close, on the loop that holds it.
  struct Eviction: Sendable {
    let loop: EventLoop
    let ticket: UInt64
  }

  private struct Counts {
    var total = 0
    var perAddress: [String: Int] = [:]
    /// Reserve connections that have not shown a priority request, oldest first.
    var unproven: [(ticket: UInt64, loop: EventLoop)] = []
    var nextTicket: UInt64 = 0
  }

  private let counts = Mutex(Counts())

  /// Takes a slot for a connection from `address`, to be served on `loop`; nil when every slot
  /// is taken by connections that keep them, or the address has its share. When the server is
  /// full, the slot of the oldest unproven reserve connection is taken: it is returned for the
  /// caller to close (the count stays above the limit by one until it has closed).
  func admit(address: String, limits: HTTPLimits, loop: EventLoop) -> (
    Admission, evicted: Eviction?
  )? {
    counts.withLock { counts in
      let mine = counts.perAddress[address, default: 0]
      if limits.maxConnectionsPerAddress > 0 && mine >= limits.maxConnectionsPerAddress {
        return nil
      }
      var evicted: Eviction?
      if counts.total >= limits.maxConnections {
        guard !counts.unproven.isEmpty else { return nil }
        let oldest = counts.unproven.removeFirst()
        evicted = Eviction(loop: oldest.loop, ticket: oldest.ticket)
      }
      counts.total += 1
      counts.perAddress[address] = mine + 1
      let softLimit = limits.maxConnections - limits.reservedConnections
      guard counts.total > softLimit || evicted != nil else { return (.regular, nil) }
      counts.nextTicket += 1
      counts.unproven.append((counts.nextTicket, loop))
      return (.priorityOnly(ticket: counts.nextTicket), evicted)
    }
  }

  /// The reserve connection `ticket` showed a priority request: it keeps its slot.
  func keep(_ ticket: UInt64) {
    counts.withLock { counts in counts.unproven.removeAll { $0.ticket == ticket } }
  }

  func release(address: String, admission: Admission) {
    counts.withLock { counts in
      counts.total -= 1
      let left = counts.perAddress[address, default: 1] - 1
      counts.perAddress[address] = left > 0 ? left : nil
      if case .priorityOnly(let ticket) = admission {
        counts.unproven.removeAll { $0.ticket == ticket }
      }
    }
  }

  var current: Int { counts.withLock { $0.total } }
}
