import Foundation
import SusiClock
import SusiCore
import SusiCoreTesting
import SusiDelivery
import SusiHTTPClient
import SusiPostgres
import SusiPostgresLog
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// Webhook deliveries on a fleet: two delivery services (two nodes) on one database share each
/// subscriber through a lease, so every event is delivered once while both run, and when the
/// holder dies another node takes the lease once it expires and goes on from the saved cursor.
/// Time is a clock moved by hand: leases expire when the test advances it, never by sleeping.
@Suite(
  .serialized,
  .enabled(
    if: PostgresCluster.program.testsShouldRun,
    Comment(rawValue: PostgresCluster.program.skipNote)))
struct PostgresDeliveryTests {
  static let secret = WebhookSecret.generate()
  static let lease: Int64 = 30_000

  /// Leases that fail every call once `kill()` is called, as a node that died (or lost the
  /// database) would: its lease is neither renewed nor released.
  final class KillableLeases: DeliveryLeases {
    struct Dead: Error {}
    let inner: PostgresDeliveryLeases
    private let dead = Atomic<Bool>(false)

    init(_ inner: PostgresDeliveryLeases) { self.inner = inner }

    var duration: Int64 { inner.duration }

    func kill() { dead.store(true, ordering: .sequentiallyConsistent) }

    func hold(_ id: String, now: Int64) throws -> Bool {
      guard !dead.load(ordering: .sequentiallyConsistent) else { throw Dead() }
      return try inner.hold(id, now: now)
    }

    func release(_ id: String) {
      guard !dead.load(ordering: .sequentiallyConsistent) else { return }
      inner.release(id)
    }
  }

  func freshLog() throws -> PostgresLogLocation {
    let cluster = try PostgresCluster.shared()
    return try PostgresLogLocation(cluster.uri(try cluster.database()))
  }

  /// A subscribers file of its own (each node has one) holding `hook`, which gets every event.
  func hookFile() throws -> SubscriberFile {
    let file = try SubscriberFile(path: FileManagerTestFolder().path + "/log.subscribers")
    try file.add(
      Subscriber(
        id: "hook", url: "http://127.0.0.1:9/hook", events: [], secret: Self.secret, after: 0))
    return file
  }

  func service(
    _ store: Store, leases: PostgresDeliveryLeases, wrapped: (any DeliveryLeases)? = nil,
    transport: RecordingTransport, clock: ManualTimeSource
  ) throws -> DeliveryService {
    DeliveryService(
      feed: store.feed, registry: try hookFile(), cursors: leases, leases: wrapped ?? leases,
      transport: { _ in transport }, clock: clock,
      policy: DeliveryPolicy(
        jitter: 0, timeout: 60, targets: TargetPolicy(allowsPrivateTargets: true)))
  }

  /// A rating the reducer refuses: two events.
  func sendRating(_ store: Store) async throws {
    try await store.send(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 9)), origin: .webhook)
  }

  func phase(_ service: DeliveryService, _ lastSeq: Int) -> String? {
    service.statuses(lastSeq: lastSeq).first?.phase
  }

  /// Moves the clock by one renewal period and waits until both keepers sleep again.
  func renew(_ clock: ManualTimeSource) async {
    await clock.advance(by: .milliseconds(Self.lease / 3))
    await clock.waitForSleepers(count: 2)
  }

  @Test func aSubscriberOnTwoNodesGetsEachEventOnceAndTheOtherNodeTakesOverWhenOneDies()
    async throws
  {
    let location = try freshLog()
    let opened = try PostgresLogRecovery.open(location)
    let store = Store(
      sink: opened.sink, runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch),
      recovered: opened.recovered)
    let clock = ManualTimeSource()
    let transport = RecordingTransport()
    let pgA = try PostgresDeliveryLeases(location: location, node: 1, duration: Self.lease)
    let pgB = try PostgresDeliveryLeases(location: location, node: 2, duration: Self.lease)
    let leasesA = KillableLeases(pgA)
    let a = try service(store, leases: pgA, wrapped: leasesA, transport: transport, clock: clock)
    let b = try service(store, leases: pgB, transport: transport, clock: clock)
    a.start()
    await clock.waitForSleepers(count: 1)
    b.start()
    await clock.waitForSleepers(count: 2)
    #expect(phase(a, 0) != "standby")
    #expect(phase(b, 0) == "standby")

    // Both run, renewing their leases: each event reaches the subscriber once.
    for _ in 0..<3 { try await sendRating(store) }
    await transport.waitForRequests(6)
    await renew(clock)
    await renew(clock)
    try await sendRating(store)
    await transport.waitForRequests(8)
    await waitUntil("node a saved its cursor at 8") { pgA.cursor("hook")?.delivered == 8 }
    #expect(transport.seqs == Array(1...8))
    #expect(phase(b, 8) == "standby")

    // Node a dies holding the lease (renewed last at 20 s, so it runs until 50 s). Node b waits
    // for it to expire, then goes on from a's cursor.
    leasesA.kill()
    await renew(clock)
    await renew(clock)
    #expect(phase(b, 8) == "standby", "a's lease has not expired yet")
    #expect(transport.seqs.count == 8)
    try await sendRating(store)
    await renew(clock)
    await transport.waitForRequests(10)
    #expect(phase(b, 10) != "standby")
    #expect(phase(a, 10) == "standby")
    try await sendRating(store)
    await transport.waitForRequests(12)
    #expect(transport.seqs == Array(1...12))
    await waitUntil("node b saved its cursor at 12") { pgB.cursor("hook")?.delivered == 12 }

    await a.shutdown()
    await b.shutdown()
    store.feed.close()
    await store.close()
    pgA.close()
    pgB.close()
  }

  @Test func aNodeStoppingCleanlyHandsItsSubscriberOverAtTheNextRenewal() async throws {
    let location = try freshLog()
    let opened = try PostgresLogRecovery.open(location)
    let store = Store(
      sink: opened.sink, runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch),
      recovered: opened.recovered)
    let clock = ManualTimeSource()
    let transport = RecordingTransport()
    let pgA = try PostgresDeliveryLeases(location: location, node: 1, duration: Self.lease)
    let pgB = try PostgresDeliveryLeases(location: location, node: 2, duration: Self.lease)
    let a = try service(store, leases: pgA, transport: transport, clock: clock)
    let b = try service(store, leases: pgB, transport: transport, clock: clock)
    a.start()
    await clock.waitForSleepers(count: 1)
    b.start()
    await clock.waitForSleepers(count: 2)
    try await sendRating(store)
    await transport.waitForRequests(2)

    await a.shutdown()
    await clock.advance(by: .milliseconds(Self.lease / 3))
    await clock.waitForSleepers(count: 1)
    #expect(phase(b, 2) != "standby")
    try await sendRating(store)
    await transport.waitForRequests(4)
    #expect(transport.seqs == [1, 2, 3, 4])

    await b.shutdown()
    store.feed.close()
    await store.close()
    pgA.close()
    pgB.close()
  }

  @Test func aLeaseIsTakenOnlyOnceExpiredAndTheNodeThatLostItCannotMoveTheCursor() throws {
    let location = try freshLog()
    let a = try PostgresDeliveryLeases(location: location, node: 1, duration: 15_000)
    let b = try PostgresDeliveryLeases(location: location, node: 2, duration: 15_000)
    defer {
      a.close()
      b.close()
    }
    #expect(try a.hold("hook", now: 1_000))
    #expect(try !b.hold("hook", now: 1_000))
    try a.save("hook", delivered: 5)
    // Registering the subscriber on another node leaves its cursor and lease alone.
    let registry = SubscriberRegistry(
      file: try SubscriberFile(path: FileManagerTestFolder().path + "/log.subscribers"), cursors: b)
    try registry.register(
      Subscriber(id: "hook", url: "http://127.0.0.1:9/hook", events: [], secret: Self.secret),
      lastSeq: 0)
    #expect(try a.hold("hook", now: 10_000), "renewed until 25 s")
    #expect(try !b.hold("hook", now: 24_999))
    #expect(b.cursor("hook")?.delivered == 5)
    #expect(try b.hold("hook", now: 25_000))
    #expect(b.cursor("hook")?.delivered == 5)
    #expect(throws: PostgresError.self) { try a.save("hook", delivered: 9) }
    #expect(try !a.hold("hook", now: 25_000))
    try b.save("hook", delivered: 7)
    b.release("hook")
    #expect(try a.hold("hook", now: 25_001), "released: free at once")
    #expect(a.cursor("hook")?.delivered == 7)
  }
}
