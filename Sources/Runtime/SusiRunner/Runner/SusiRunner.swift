import SusiClock
public import SusiCore
import SusiHTTPClient
import SusiHTTPTypes
import SusiJSON
public import SusiStore
import Synchronization

/// The effects runner: performs each effect in the background and delivers exactly one result
/// per effect, with the asking event's seq as cause. This file schedules the effects and turns
/// each outcome into its result (`Performer`); each domain's requests are in
/// `SusiRunner+Domain.swift`.
///
/// - Effects that do I/O run at most `concurrencyLimit` at a time; the rest wait in the order
///   they were started. Refusals, server switches and planned answers take no slot.
/// - `.cancel(seq)` cancels the effects of event `seq`, running or waiting; each then delivers
///   `requestFailed {kind: "cancelled"}` (a logout still completes: its token is gone).
///   `.supersede(seq)` does the same, but the result says `superseded`, naming the newer event.
/// - `shutdown()` cancels everything and delivers nothing more.
public final class SusiRunner: EffectsRunner {
  private struct Job: Sendable {
    let id: Int
    let cause: Int
    let effect: Effect
    let deliver: ResultDelivery
    /// Whether the job holds one of the limited slots while it runs.
    let usesSlot: Bool
  }

  private struct Book: ~Copyable {
    var running = 0
    var queue: [Job] = []
    var queueHead = 0
    /// The task of each launched job, by job id, with the job's cause.
    var tasks: [Int: (cause: Int, task: Task<Void, Never>)] = [:]
    /// How many jobs of each cause are unfinished. A count, not the jobs' ids: a set for each
    /// cause cost allocations for every chat, and a cancel (rare) finds the jobs by looking
    /// through `tasks` and the queue.
    var unfinishedByCause: [Int: Int] = [:]
    /// Started and not yet delivered (waiting, running, or delivering).
    var pending = 0
    var idleWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var isShutDown = false
    var nextID = 0
    /// Why the requests of these events were cancelled, when not simply on request.
    var cancelReasons: [Int: RunnerFailure] = [:]

    mutating func dequeue() -> Job? {
      guard queueHead < queue.count else { return nil }
      let job = queue[queueHead]
      queueHead += 1
      if queueHead > 64 && queueHead * 2 > queue.count {
        queue.removeFirst(queueHead)
        queueHead = 0
      }
      return job
    }
  }

  private let performer: Performer
  private let limit: Int
  /// Where effects run: the HTTP client's event loop when the transport has one, so a reply
  /// is decoded and delivered by the thread that read it (see `launch`).
  private let executor: (any TaskExecutor)?
  private let book = Mutex(Book())

  /// A runner with everything `configuration` says: transport (`SocketTransport` unless given),
  /// clock, retry policy, credentials and image cache under the state directory.
  public init(configuration: RunnerConfiguration) {
    let transport =
      configuration.transport
      ?? SocketTransport(
        maximumConnectionsPerOrigin: configuration.connectionsPerOrigin,
        caFile: configuration.caFile, proxies: configuration.proxies)
    var sender = RequestSender(
      transport: transport, clock: configuration.clock,
      random: RandomSource(seed: configuration.randomSeed), policy: configuration.retryPolicy,
      pacer: PathPacer(gap: configuration.pacingMilliseconds))
    sender.trace = configuration.trace
    var targets = configuration.targetPolicy
    if let embedded = configuration.embeddedServerURL { targets.allow(originOf: embedded) }
    targets.allow(originOf: configuration.websearchURL)
    let limits = RequestLimits(
      idleTimeout: configuration.timeouts.idle, totalTimeout: configuration.timeouts.total,
      maximumBodyBytes: configuration.maximumBodyBytes, userAgent: configuration.userAgent)
    let fetcher = ImageFetcher(
      sender: sender, limits: limits, timeout: configuration.timeouts.image,
      maximumBytes: configuration.maximumImageBytes, targets: targets)
    let images = ImageCache(
      directory: configuration.imageDirectory ?? configuration.stateDirectory + "/images",
      capacity: configuration.imageCacheBytes
    ) { url throws(RunnerFailure) in try await fetcher.fetch(url) }
    performer = Performer(
      sender: sender,
      credentials: CredentialsStore(
        stateDirectory: configuration.stateDirectory,
        missingRecheck: configuration.missingLoginRecheck),
      images: images, clock: configuration.clock, limits: limits,
      embeddedServerURL: configuration.embeddedServerURL, websearchURL: configuration.websearchURL,
      timeouts: configuration.timeouts,
      timezoneOffsetMinutes: configuration.timezoneOffsetMinutes
        ?? MachineLocale.timezoneOffsetMinutes(),
      machineLanguage: configuration.machineLanguage ?? MachineLocale.language(),
      deviceType: configuration.deviceType, targets: targets)
    limit = max(1, configuration.concurrencyLimit)
    executor = transport.preferredTaskExecutor
  }

  /// The HTTP client's event loop, where every effect's task runs (nil without one).
  public var preferredTaskExecutor: (any TaskExecutor)? { executor }

  /// Begins `effect` for the event with seq `cause`; its one result goes to `deliver`.
  public func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery) {
    if case .cancel(let seq) = effect {
      cancel(seq, failure: .cancelled)
      return
    }
    if case .supersede(let seq) = effect {
      cancel(seq, failure: .superseded(by: cause))
      return
    }
    book.withLock { book in
      guard !book.isShutDown else { return }
      book.nextID += 1
      let job = Job(
        id: book.nextID, cause: cause, effect: effect, deliver: deliver,
        usesSlot: Self.needsSlot(effect))
      book.pending += 1
      book.unfinishedByCause[cause, default: 0] += 1
      if !job.usesSlot {
        launch(job, in: &book)
      } else if book.running < limit {
        book.running += 1
        launch(job, in: &book)
      } else {
        book.queue.append(job)
      }
    }
  }

  /// Effects that only sleep or answer at once do not wait for a slot.
  private static func needsSlot(_ effect: Effect) -> Bool {
    switch effect {
    case .deliverLater, .cancel, .supersede: false
    default: true
    }
  }

  /// Starts `job`'s task; `result` skips the work (a job cancelled while it waited).
  ///
  /// The task prefers the transport's event loop: a chat's request is written, its reply read,
  /// decoded and handed to the store without a hop to another thread in between (each hop
  /// wakes a thread). What an effect does besides waiting is short, so the loop keeps up.
  ///
  /// When its job is delivered, the task takes the next waiting job itself (see `finish`):
  /// a program feeding many chats makes a task per free slot, not one per chat.
  private func launch(_ job: Job, in book: inout Book, result: Action? = nil) {
    let performer = performer
    book.tasks[job.id] = (
      job.cause,
      Task(executorPreference: executor) {
        var job = job
        var result = result
        while true {
          let action: Action
          if let result {
            action = result
          } else {
            action = await performer.perform(job.effect, cause: job.cause)
          }
          let usedSlot = result == nil && job.usesSlot
          guard let next = await self.finish(job, with: action, usedSlot: usedSlot) else { return }
          job = next
          result = nil
        }
      }
    )
  }

  /// Delivers `job`'s result and lets its slot go to the next waiting job: the job this task
  /// goes on with (returned), or a task of its own when this one was cancelled, since a
  /// cancelled task stays cancelled.
  private func finish(_ job: Job, with action: Action, usedSlot: Bool) async -> Job? {
    var action = action
    let deliver = book.withLock { book -> Bool in
      // A running request only sees its task cancelled; say why it was.
      if case .requestFailed(var failed) = action, failed.error.kind == .cancelled,
        let reason = book.cancelReasons[job.cause]
      {
        failed.error = reason.requestError
        action = .requestFailed(failed)
      }
      return !book.isShutDown
    }
    if deliver { await job.deliver(action) }
    let (waiters, next) = book.withLock {
      book -> ([CheckedContinuation<Void, Never>], Job?) in
      let task = book.tasks.removeValue(forKey: job.id)?.task
      var next: Job?
      if usedSlot {
        if !book.isShutDown, let waiting = book.dequeue() {
          if let task, !Task.isCancelled {
            book.tasks[waiting.id] = (waiting.cause, task)
            next = waiting
          } else {
            launch(waiting, in: &book)
          }
        } else {
          book.running -= 1
        }
      }
      let unfinished = (book.unfinishedByCause[job.cause] ?? 1) - 1
      if unfinished > 0 {
        book.unfinishedByCause[job.cause] = unfinished
      } else {
        book.unfinishedByCause[job.cause] = nil
        book.cancelReasons[job.cause] = nil
      }
      book.pending -= 1
      guard book.pending == 0 else { return ([], next) }
      defer { book.idleWaiters = [:] }
      return (Array(book.idleWaiters.values), next)
    }
    for waiter in waiters { waiter.resume() }
    return next
  }

  /// Cancels the effects of event `seq`: a running one is interrupted, a waiting one leaves
  /// the queue; either way it reports `failure` (`cancelled` or `superseded`).
  private func cancel(_ seq: Int, failure: RunnerFailure) {
    book.withLock { book in
      guard book.unfinishedByCause[seq] != nil else { return }
      book.cancelReasons[seq] = failure
      for running in book.tasks.values where running.cause == seq { running.task.cancel() }
      var index = book.queueHead
      while index < book.queue.count {
        guard book.queue[index].cause == seq else {
          index += 1
          continue
        }
        let job = book.queue.remove(at: index)
        let result = Action.requestFailed(
          Action.RequestFailed(cause: job.cause, error: failure.requestError))
        launch(job, in: &book, result: result)
      }
    }
  }

  /// Waits until every started effect has delivered, or `timeout` real seconds have passed
  /// (the injected clock does not count here); true when idle.
  public func waitUntilIdle(timeout: Double) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
      group.addTask { await self.idle() }
      group.addTask {
        try? await TimerSleeper.shared.sleep(milliseconds: Int64(max(0, timeout) * 1000))
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
  }

  /// Returns true once nothing is pending; false when cancelled first.
  private func idle() async -> Bool {
    let id = book.withLock { book -> Int in
      book.nextID += 1
      return book.nextID
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = book.withLock { book -> Bool in
          if book.pending == 0 || Task.isCancelled { return true }
          book.idleWaiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
      return book.withLock { $0.pending == 0 }
    } onCancel: {
      let waiter = book.withLock { $0.idleWaiters.removeValue(forKey: id) }
      waiter?.resume()
    }
  }

  /// Cancels everything, waits for the work to stop, and delivers nothing more.
  public func shutdown() async {
    let tasks = book.withLock { book -> [Task<Void, Never>] in
      book.isShutDown = true
      let waiting = book.queue.count - book.queueHead
      book.queue = []
      book.queueHead = 0
      book.pending -= waiting
      for running in book.tasks.values { running.task.cancel() }
      return book.tasks.values.map(\.task)
    }
    for task in tasks { await task.value }
    let waiters = book.withLock { book -> [CheckedContinuation<Void, Never>] in
      defer { book.idleWaiters = [:] }
      return Array(book.idleWaiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }
}

// MARK: Performing one effect

extension SusiRunner {
  /// Performs one effect and turns its outcome into the one result action it owes.
  ///
  /// Each `Effect` case maps to a result (see `Effect` and the reducer): success to its
  /// past-tense action, any failure to `requestFailed {cause, error}` (`loginFailed` for a
  /// login). `Effect.perform(with:)` hands each effect to its method, which lives with its domain
  /// in `SusiRunner+Domain.swift`.
  struct Performer: EffectPerforming {
    typealias Failure = RunnerFailure

    let sender: RequestSender
    let credentials: CredentialsStore
    let images: ImageCache
    let clock: any TimeSource
    let limits: RequestLimits
    let embeddedServerURL: String?
    let websearchURL: String
    let timeouts: Timeouts
    let timezoneOffsetMinutes: Int
    let machineLanguage: String
    let deviceType: String
    /// Where link previews may go.
    let targets: TargetPolicy

    /// The result action for `effect`, asked for by the event with seq `cause`.
    func perform(_ effect: Effect, cause: Int) async -> Action {
      do throws(RunnerFailure) {
        return try await effect.perform(with: self)
      } catch {
        let failure = error.hiding(secrets(of: effect))
        if case .login(_, let email, _, _) = effect, failure.kind != .cancelled {
          return .loginFailed(Action.LoginFailed(email: email, error: failure.requestError))
        }
        return .requestFailed(Action.RequestFailed(cause: cause, error: failure.requestError))
      }
    }

    /// The effect's password and the server's token: a server may echo what it was sent in an
    /// error page, and results go to the log.
    private func secrets(of effect: Effect) -> [String] {
      var secrets: [String] = []
      switch effect {
      case .login(_, _, let password, _), .signup(_, _, let password):
        secrets.append(password.reveal())
      default: break
      }
      if let server = effect.server {
        secrets += (try? credentials.load(server: server)).flatMap { $0.map { [$0.token] } } ?? []
      }
      return secrets
    }
  }
}

// The plumbing every request shares.

extension SusiRunner.Performer {
  /// The base URL of `server`: the embedded server's, or the URL itself without a trailing
  /// slash.
  func baseURL(_ server: String) throws(RunnerFailure) -> String {
    var base = server
    if server == State.embeddedServer {
      guard let embedded = embeddedServerURL else {
        throw RunnerFailure(
          .network,
          "the embedded server is not running; start it, or choose a server with --server URL")
      }
      base = embedded
    }
    while base.hasSuffix("/") { base.removeLast() }
    return base
  }

  /// Calls a SUSI endpoint and returns the reply's JSON object (or the failure it stands for).
  func call(_ call: APICall, base: String, policy: RetryPolicy? = nil, totalTimeout: Double? = nil)
    async throws(RunnerFailure) -> JSONObject
  {
    let response = try await send(call, base: base, policy: policy, totalTimeout: totalTimeout)
    return try ReplyReader.object(response, endpoint: call.endpoint, place: call.endpoint.path)
  }

  /// Calls a SUSI endpoint and returns its reply, for a decoder that reads it itself
  /// (`ReplyReader.read`).
  func send(_ call: APICall, base: String, policy: RetryPolicy? = nil, totalTimeout: Double? = nil)
    async throws(RunnerFailure) -> TransportResponse
  {
    var limits = limits
    if let totalTimeout { limits.totalTimeout = totalTimeout }
    let request = call.request(base: base, limits: limits)
    // A request that never got a reply names the whole address (the default `place`): which
    // server it was matters.
    return try await sender.send(
      request, idempotent: call.endpoint.idempotent, policy: policy, paced: true)
  }

  /// The token for an endpoint that needs a logged-in user. No token means no request
  /// (`notLoggedIn`); an expired one is not sent (`unauthorized`, so the session ends).
  func userToken(_ server: String) throws(RunnerFailure) -> String {
    guard let stored = try credentials.load(server: server) else {
      throw RunnerFailure(.notLoggedIn, "nobody is logged in to this server; log in first")
    }
    if stored.isExpired(at: clock.now()) {
      throw RunnerFailure(
        .unauthorized,
        "the session of \(stored.email) expired at \(stored.expiresAt.map(\.rfc3339) ?? "?"); log in again"
      )
    }
    return stored.token
  }

  /// The token to send when there is a live one, and whether any token (even an expired one)
  /// is held: the server answering anonymously then means the session has ended.
  func optionalToken(_ server: String) throws(RunnerFailure) -> (token: String?, held: Bool) {
    guard let stored = try credentials.load(server: server) else { return (nil, false) }
    return (stored.isExpired(at: clock.now()) ? nil : stored.token, true)
  }
}
