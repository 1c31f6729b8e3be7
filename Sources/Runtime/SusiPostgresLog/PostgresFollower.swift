import Foundation
import Glibc
public import SusiPostgres
public import SusiStore
import Synchronization

/// Wakes a store when another node appends to its log: a thread of its own LISTENs on the log's
/// channel and, when a notification names a seq the store has not seen, has the store catch up
/// (`Store.catchUp`). No polling: the thread sleeps in `poll()` on the connection's socket.
///
/// A notification that arrives while a catch-up is already scheduled is folded into it. After a
/// broken connection the thread reconnects and catches up once, since notifications sent
/// meanwhile are lost.
///
/// The same thread takes over the requests of nodes that died (`PostgresTakeover`): every
/// `takeOverAfter` it closes, as interrupted, the requests in flight whose node is gone.
public final class PostgresFollower: Sendable {
  private let location: PostgresLogLocation
  private let sink: PostgresEventSink
  private let store: Store
  /// A pipe: the thread polls its read end, `stop` writes to the other.
  private let wake: Int32
  private let wakeWriter: Int32
  private let stopped = Atomic<Bool>(false)
  private let scheduled = Atomic<Bool>(false)
  private let done = Mutex<Bool>(false)
  private let finished = DispatchSemaphore(value: 0)
  /// Closes the requests of dead nodes (nil: the sink has no node number).
  private let takeover: PostgresTakeover?
  private let sweepMilliseconds: Int32
  private let sweeping = Atomic<Bool>(false)
  /// Where a sweep that failed is reported (once until one succeeds again).
  private let warnings: BackgroundWarnings?
  private let sweepFailing = Atomic<Bool>(false)

  /// Starts following: listens first, then catches the store up once, so nothing appended
  /// between the store's replay and the LISTEN is missed.
  ///
  /// - Parameter takeOverAfter: how often the requests of dead nodes are looked for; a request
  ///   whose node died is closed within this long.
  public init(
    location: PostgresLogLocation, sink: PostgresEventSink, store: Store,
    takeOverAfter: Duration = .seconds(5), warnings: BackgroundWarnings? = nil
  ) throws(PostgresError) {
    self.warnings = warnings
    self.location = location
    self.sink = sink
    self.store = store
    takeover = sink.node.map { PostgresTakeover(location: location, node: $0) }
    let (seconds, attoseconds) = takeOverAfter.components
    sweepMilliseconds = Int32(
      clamping: max(1, min(seconds, 86_400) * 1000 + attoseconds / 1_000_000_000_000_000))
    let connection = try PostgresConnection(location.database)
    try connection.listen(location.channel)
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      throw PostgresError(.connection, "cannot make a pipe: \(String(cString: strerror(errno)))")
    }
    wake = ends[0]
    wakeWriter = ends[1]
    let box = UncheckedBox(connection)
    let thread = Thread { [self] in run(box) }
    thread.name = "susi-postgres-follow"
    thread.start()
    scheduleCatchUp()
  }

  /// Stops the thread and closes its connection.
  public func stop() {
    guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
    var one: UInt8 = 1
    _ = Glibc.write(wakeWriter, &one, 1)
    finished.wait()
    Glibc.close(wake)
    Glibc.close(wakeWriter)
    takeover?.close()
  }

  private func run(_ box: UncheckedBox<PostgresConnection>) {
    var connection: PostgresConnection? = box.value
    defer {
      connection?.close()
      finished.signal()
    }
    let clock = ContinuousClock()
    let interval = Duration.milliseconds(sweepMilliseconds)
    var nextSweep = clock.now.advanced(by: interval)
    while !stopped.load(ordering: .acquiring) {
      if clock.now >= nextSweep {
        nextSweep = clock.now.advanced(by: interval)
        scheduleSweep()
      }
      do throws(PostgresError) {
        if connection == nil {
          let fresh = try PostgresConnection(location.database)
          try fresh.listen(location.channel)
          connection = fresh
          scheduleCatchUp()
        }
        guard let open = connection else { continue }
        let received = try open.waitForNotifications(
          wake: wake, timeoutMilliseconds: takeover == nil ? -1 : sweepMilliseconds)
        let newest = received.compactMap { Int($0.payload) }.max() ?? 0
        // A node notifies once its records are on the disk.
        sink.othersFlushed(through: newest)
        if newest > sink.lastSeq { scheduleCatchUp() }
      } catch {
        connection?.close()
        connection = nil
        // The database is away: try again shortly (or stop).
        var descriptor = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, 200)
      }
    }
  }

  /// Closes the requests of dead nodes, unless a sweep is still running.
  private func scheduleSweep() {
    guard let takeover, !sweeping.exchange(true, ordering: .acquiringAndReleasing) else { return }
    Task { [self] in
      do {
        try await takeover.sweep(store)
        sweepFailing.store(false, ordering: .releasing)
      } catch {
        if !sweepFailing.exchange(true, ordering: .acquiringAndReleasing) {
          warnings?.warn(
            "cannot look for the requests of nodes that died: \(error); trying again in "
              + "\(sweepMilliseconds) ms")
        }
      }
      sweeping.store(false, ordering: .releasing)
    }
  }

  /// Has the store catch up, unless a catch-up is already scheduled and has not started.
  private func scheduleCatchUp() {
    guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    Task { [self] in
      scheduled.store(false, ordering: .releasing)
      await store.catchUp()
    }
  }
}

/// Hands a non-Sendable value to the one thread that uses it from then on.
private struct UncheckedBox<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
