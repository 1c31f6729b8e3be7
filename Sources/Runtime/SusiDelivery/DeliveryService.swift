public import SusiClock
import SusiCrypto
public import SusiHTTPClient
public import SusiStore
import Synchronization

/// Runs one delivery worker per subscriber, and adds, removes and re-enables subscribers while
/// the deliveries run (the webhook frontend's admin routes call it): it starts and stops the
/// workers around the registry's changes.
///
/// With `leases` (nodes of a fleet sharing a database log), a subscriber is delivered only while
/// this node holds its lease: a keeper task per subscriber takes or renews the lease every third
/// of its duration, starts the worker when it holds it and stops the worker when it does not.
public final class DeliveryService: SubscriberAdministration {
  private let feed: EventFeed
  private let registry: SubscriberRegistry
  private let makeTransport: @Sendable (Subscriber) -> any HTTPTransport
  private let clock: any TimeSource
  /// How the attempts ended, by subscriber.
  public let counters: DeliveryCounters
  private let policy: DeliveryPolicy
  private let random: @Sendable () -> Double
  private let running = Mutex<[String: Running]>([:])
  private let leases: (any DeliveryLeases)?
  /// With leases: the task keeping each subscriber's lease, by subscriber id.
  private let keepers = Mutex<[String: Task<Void, Never>]>([:])
  /// With leases and subscribers other nodes share: the task reading them again.
  private let refresher = Mutex<Task<Void, Never>?>(nil)
  /// Leases lost or not renewed and cursors not saved, for the operators' log.
  public let warnings = BackgroundWarnings()

  struct Running: Sendable {
    var worker: DeliveryWorker
    var task: Task<Void, Never>
  }

  /// A service delivering `feed`'s events to the subscribers in `registry`, each one only
  /// while this node holds its lease in `leases` when given.
  public init(
    feed: EventFeed, registry: SubscriberFile, cursors: any DeliveryCursorStore,
    leases: (any DeliveryLeases)? = nil,
    transport makeTransport: @escaping @Sendable (Subscriber) -> any HTTPTransport = { _ in
      SocketTransport()
    },
    clock: any TimeSource = SystemTimeSource(), counters: DeliveryCounters = DeliveryCounters(),
    policy: DeliveryPolicy = DeliveryPolicy(),
    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
  ) {
    self.feed = feed
    self.registry = SubscriberRegistry(file: registry, cursors: cursors)
    self.makeTransport = makeTransport
    self.clock = clock
    self.counters = counters
    self.policy = policy
    self.random = random
    self.leases = leases
  }

  /// Starts a worker for every subscriber in the registry that is not disabled.
  public func start() {
    for subscriber in registry.file.subscribers { begin(subscriber) }
    guard let leases, registry.file.isShared else { return }
    refresher.withLock { $0 = Task { await self.refreshSubscribers(every: leases.duration / 3) } }
  }

  /// Reads the shared subscribers again every `interval` milliseconds until cancelled: takes
  /// part in delivering the ones another node added, stops delivering the ones it removed.
  private func refreshSubscribers(every interval: Int64) async {
    var failing = false
    while !Task.isCancelled {
      do {
        try await clock.sleep(milliseconds: max(1, interval))
      } catch {
        return
      }
      guard !Task.isCancelled else { return }
      // The keepers first, then the list: a subscriber added here is stored before its keeper
      // starts, so every keeper's subscriber that still exists is in the list read after.
      let kept = keepers.withLock { Set($0.keys) }
      let now: [Subscriber]
      do {
        now = try registry.file.reload()
        failing = false
      } catch {
        if !failing { warnings.warn("cannot read the subscribers again: \(error)") }
        failing = true
        continue
      }
      let ids = Set(now.map(\.id))
      for subscriber in now where !kept.contains(subscriber.id) { begin(subscriber) }
      for gone in kept.subtracting(ids) { await stop(gone) }
    }
  }

  /// Delivers to `subscriber`: at once without leases, else whenever this node holds its lease.
  private func begin(_ subscriber: Subscriber) {
    guard let leases else { return startWorker(subscriber) }
    keepers.withLock { all in
      guard all[subscriber.id] == nil else { return }
      all[subscriber.id] = Task { await self.keepLease(on: subscriber, in: leases) }
    }
  }

  /// Takes or renews the lease on `subscriber` every third of its duration until cancelled,
  /// delivering while it is held. A lease that cannot be renewed (another node took it after it
  /// expired, or the database is out of reach) stops the worker: its cursor saves are refused
  /// once another node holds the lease, and the new holder goes on from the saved cursor.
  private func keepLease(on subscriber: Subscriber, in leases: any DeliveryLeases) async {
    var heldBefore = false
    var failing = false
    while !Task.isCancelled {
      let held: Bool
      do {
        held = try leases.hold(subscriber.id, now: clock.millisecondsSince1970())
        failing = false
        if heldBefore && !held {
          warnings.warn(
            "lost the delivery lease on subscriber '\(subscriber.id)' to another node; "
              + "that node delivers it from now on")
        }
      } catch {
        held = false
        if !failing {
          warnings.warn(
            "cannot \(heldBefore ? "renew" : "take") the delivery lease on subscriber "
              + "'\(subscriber.id)': \(error); this node does not deliver it until it can")
        }
        failing = true
      }
      heldBefore = held
      guard !Task.isCancelled else { return }
      if held { startWorker(subscriber) } else { await stopWorker(subscriber.id) }
      do {
        try await clock.sleep(milliseconds: max(1, leases.duration / 3))
      } catch {
        return
      }
    }
  }

  /// Stops keeping the lease on `id` (it stays held until released or expired).
  private func stopKeeper(_ id: String) async {
    guard let keeper = keepers.withLock({ $0.removeValue(forKey: id) }) else { return }
    keeper.cancel()
    await keeper.value
  }

  private func startWorker(_ subscriber: Subscriber) {
    let worker = DeliveryWorker(
      subscriber: subscriber, feed: feed, transport: makeTransport(subscriber), clock: clock,
      cursors: registry.cursors,
      counters: counters, policy: policy, random: random, warnings: warnings)
    running.withLock { all in
      guard all[subscriber.id] == nil else { return }
      all[subscriber.id] = Running(worker: worker, task: Task { await worker.run() })
    }
  }

  /// Refuses a subscriber `url` that resolves to an address deliveries may not post to (see
  /// `Subscriber.checkTarget`).
  public func checkTarget(_ url: String) async throws(TransportError) {
    try await Subscriber.checkTarget(url, targets: policy.targets)
  }

  /// Registers a subscriber (see `SubscriberRegistry.register`) and starts delivering to it.
  /// With no `after`, it gets the events that follow `lastSeq` (the log's last event now).
  @discardableResult
  public func register(_ subscriber: Subscriber, lastSeq: Int) throws(SubscriberRefusal)
    -> Subscriber
  {
    let added = try registry.register(subscriber, lastSeq: lastSeq)
    begin(added)
    return added
  }

  /// Stops delivering to a subscriber and forgets it and its cursor.
  public func remove(_ id: String) async throws(SubscriberRefusal) {
    await stop(id)
    try registry.remove(id)
  }

  /// Lets deliveries to a disabled subscriber go on, starting with the event it refused.
  public func enable(_ id: String) async throws(SubscriberRefusal) {
    guard let subscriber = registry.file.subscriber(id) else {
      throw SubscriberRefusal(kind: .notFound, message: "no subscriber is called '\(id)'")
    }
    await stop(id)
    try registry.enable(id)
    begin(subscriber)
  }

  /// Stops keeping the lease on `id`, stops its worker and releases the lease.
  private func stop(_ id: String) async {
    await stopKeeper(id)
    await stopWorker(id)
    leases?.release(id)
  }

  private func stopWorker(_ id: String) async {
    guard let entry = running.withLock({ $0.removeValue(forKey: id) }) else { return }
    entry.task.cancel()
    await entry.task.value
  }

  /// Every subscriber with its progress against the log's `lastSeq`, sorted by id.
  public func statuses(lastSeq: Int) -> [SubscriberStatus] {
    let workers = running.withLock { $0.mapValues(\.worker) }.mapValues(\.snapshot)
    let waiting = keepers.withLock { Set($0.keys) }.subtracting(workers.keys)
    return registry.statuses(lastSeq: lastSeq, workers: workers).map { status in
      // Another node holds its lease and delivers it.
      guard waiting.contains(status.id) else { return status }
      var standby = status
      standby.phase = "standby"
      return standby
    }.sorted { $0.id < $1.id }
  }

  /// Stops every worker: each finishes the attempt it is in, keeps delivering while the
  /// subscriber takes events, and stops at the first failure or once caught up. After
  /// `grace` milliseconds the rest are cancelled. Cursors are saved, then leases released.
  public func shutdown(grace: Int64 = 5000) async {
    if let refreshing = refresher.withLock({ $0 }) {
      refreshing.cancel()
      await refreshing.value
    }
    let kept = keepers.withLock { all in
      let list = all
      all = [:]
      return list
    }
    for keeper in kept.values { keeper.cancel() }
    for keeper in kept.values { await keeper.value }
    defer { for id in kept.keys { leases?.release(id) } }
    let all = running.withLock { all in
      let list = Array(all.values)
      all = [:]
      return list
    }
    for entry in all where entry.worker.beginDrain() { entry.task.cancel() }
    let clock = self.clock
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for entry in all { await entry.task.value }
      }
      group.addTask {
        try? await clock.sleep(milliseconds: grace)
      }
      await group.next()
      for entry in all { entry.task.cancel() }
      group.cancelAll()
      await group.waitForAll()
    }
  }
}

extension Subscriber {
  /// A fresh id for a subscriber registered without one: `sub_` and 12 hex digits.
  public static func generateID() -> String { "sub_" + ByteEncoding.hex(Digest.randomBytes(6)) }
}
