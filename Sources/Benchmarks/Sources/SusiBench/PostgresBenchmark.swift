// susi-bench postgres [--events=N] [--lag-events=N] [--seconds=N]: the event log in PostgreSQL.
//
// Starts a throw-away PostgreSQL cluster with its durable defaults (fsync on, synchronous
// commit), then measures, in the same run: store appends on the file log (fsync batch and
// always) as the anchor; store appends on the database log, one node and two nodes appending at
// once; pgbench's single-row INSERT rate on the same database (one and two clients); and the
// follow lag from one node's append returning to another node's store applying it (woken by
// NOTIFY).

import Foundation
import SusiClock
import SusiCore
import SusiEventLog
import SusiPostgres
import SusiPostgresLog
import SusiStore
import Synchronization

let postgresBenchmark = Benchmark(
  name: "postgres",
  summary: "event log in PostgreSQL: appends vs file log and pgbench, follow lag between nodes",
  run: { arguments in try await PostgresBenchmark(arguments: arguments).run() })

/// Performs no effect: the benchmark measures the log, not the network.
private final class NullRunner: EffectsRunner {
  func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery) {}
  func waitUntilIdle(timeout: Double) async -> Bool { true }
  func shutdown() async {}
}

struct PostgresBenchmark {
  let events: Int
  let lagEvents: Int
  let seconds: Int
  /// Concurrent writers per node (and pgbench clients) in the concurrent measurements.
  let writersPerNode: Int
  /// Events in the long log of the start figures (PostgresStartFigures.swift); 0 skips them.
  let startEvents: Int
  let folder: String
  let binaries: String

  init(arguments: [String]) throws {
    events = option("--events", in: arguments).flatMap { Int($0) } ?? 5000
    lagEvents = option("--lag-events", in: arguments).flatMap { Int($0) } ?? 1000
    seconds = option("--seconds", in: arguments).flatMap { Int($0) } ?? 5
    writersPerNode = option("--writers", in: arguments).flatMap { Int($0) } ?? 8
    startEvents = option("--start-events", in: arguments).flatMap { Int($0) } ?? 1_000_000
    folder = "/tmp/susi-bench-pg-\(getpid())"
    let versions =
      (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
    guard let newest = versions.compactMap({ Int($0) }).max() else {
      throw BenchmarkFailure("PostgreSQL is not installed: apt-get install -y postgresql")
    }
    binaries = "/usr/lib/postgresql/\(newest)/bin"
  }

  func run() async throws {
    try startCluster()
    defer { stopCluster() }
    let base = "postgresql:///bench?host=\(folder)&user=susi"

    let fileBatch = try await fileAppends(fsync: .batch)
    let fileAlways = try await fileAppends(fsync: .always)
    report(
      String(
        format: "file log, store appends, fsync batch:   %9.0f events/s  (%d events)", fileBatch,
        events))
    report(
      String(
        format: "file log, store appends, fsync always:  %9.0f events/s  (%d events)", fileAlways,
        events))

    // Before and after group commit, in the same run: every append its own transaction, then
    // concurrent appends sharing one; one writer, several on one node, several on two nodes.
    var groupRates: [String: Double] = [:]
    for groupCommit in [false, true] {
      for (nodes, writers) in [(1, 1), (1, writersPerNode), (2, writersPerNode)] {
        let rate = try await databaseAppends(
          base + "&log=\(groupCommit ? "g" : "s")_\(nodes)_\(writers)", nodes: nodes,
          writersPerNode: writers, groupCommit: groupCommit)
        if groupCommit { groupRates["\(nodes)x\(writers)"] = rate }
        report(
          String(
            format: "database log, %@, %d node%@ x %2d writer%@: %9.0f events/s  (%d events)",
            groupCommit ? "group commit  " : "commit per append", nodes, nodes == 1 ? " " : "s",
            writers, writers == 1 ? " " : "s", rate, events))
      }
    }

    var pgbenchRates: [Int: Double] = [:]
    for clients in [1, writersPerNode, 2 * writersPerNode] {
      if let tps = try pgbench(clients: clients) {
        pgbenchRates[clients] = tps
        report(
          String(
            format: "pgbench single-row INSERT, %2d client%@:         %9.0f rows/s    (%d s)",
            clients, clients == 1 ? " " : "s", tps, seconds))
      } else {
        report("pgbench with \(clients) clients: not run (pgbench missing or failed)")
      }
    }
    for (key, clients) in [
      ("1x1", 1), ("1x\(writersPerNode)", writersPerNode),
      ("2x\(writersPerNode)", 2 * writersPerNode),
    ] {
      if let ours = groupRates[key], let theirs = pgbenchRates[clients] {
        report(
          String(
            format: "group commit %@ writers vs pgbench %2d clients:     %.2fx", key, clients,
            ours / theirs))
      }
    }
    let file = fileBatch
    if let two = groupRates["2x\(writersPerNode)"] {
      report(
        String(format: "group commit 2 nodes vs file log (fsync batch):     %.2fx", two / file))
    }

    let lags = try await followLag(base + "&log=lag")
    report(
      String(
        format:
          "follow lag, append returned → other node applied (NOTIFY): p50 %.2f ms, p99 %.2f ms, max %.2f ms  (%d events)",
        lags.p50, lags.p99, lags.max, lagEvents))

    try await startFigures(base)
  }

  // MARK: Measurements

  private func fileAppends(fsync: EventLogFsyncPolicy) async throws -> Double {
    let path = folder + "/file-\(fsync.rawValue).jsonl"
    let writer = try EventLogWriter(path: path, options: .init(fsync: fsync))
    let store = Store(
      sink: FileEventSink(writer: writer), runner: NullRunner(), clock: SystemTimeSource())
    let count = fsync == .always ? min(events, 2000) : events
    let elapsed = try await ContinuousClock().measure {
      for n in 0..<count {
        _ = try await store.send(.sendMessage(.init(query: "question \(n)")), origin: .cli)
      }
    }
    await store.close()
    return Double(count) / elapsed.seconds
  }

  private func databaseAppends(
    _ uri: String, nodes: Int, writersPerNode: Int, groupCommit: Bool
  ) async throws -> Double {
    let location = try PostgresLogLocation(uri)
    var stores: [Store] = []
    for _ in 0..<nodes {
      let opened = try PostgresLogRecovery.open(location, groupCommit: groupCommit)
      stores.append(
        Store(
          sink: opened.sink, runner: NullRunner(), clock: SystemTimeSource(),
          recovered: opened.recovered))
    }
    let perWriter = events / (nodes * writersPerNode)
    let elapsed = try await ContinuousClock().measure {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for store in stores {
          for _ in 0..<writersPerNode {
            group.addTask {
              for n in 0..<perWriter {
                _ = try await store.send(
                  .sendMessage(.init(query: "question \(n)")), origin: .cli)
              }
            }
          }
        }
        try await group.waitForAll()
      }
    }
    for store in stores { await store.close() }
    return Double(perWriter * nodes * writersPerNode) / elapsed.seconds
  }

  private func followLag(_ uri: String) async throws -> (p50: Double, p99: Double, max: Double) {
    let location = try PostgresLogLocation(uri)
    let writerOpened = try PostgresLogRecovery.open(location)
    let writer = Store(
      sink: writerOpened.sink, runner: NullRunner(), clock: SystemTimeSource(),
      recovered: writerOpened.recovered)
    let readerOpened = try PostgresLogRecovery.open(location)
    let reader = Store(
      sink: readerOpened.sink, runner: NullRunner(), clock: SystemTimeSource(),
      recovered: readerOpened.recovered)
    let follower = try PostgresFollower(
      location: location, sink: readerOpened.sink, store: reader)
    defer { follower.stop() }
    let clock = ContinuousClock()
    let applied = Mutex<[Int: ContinuousClock.Instant]>([:])
    // Taken as the reader applies them, inside its turn.
    let following = EventForwarding(reader.events(after: await reader.lastSeq)) { event in
      let now = ContinuousClock.now
      applied.withLock { $0[event.seq] = now }
    }
    var lags: [Double] = []
    for n in 0..<lagEvents {
      let sent = try await writer.send(.sendMessage(.init(query: "lag \(n)")), origin: .cli)
      let returned = clock.now
      var seen: ContinuousClock.Instant?
      while seen == nil {
        seen = applied.withLock { $0[sent.seq] }
        if seen == nil { await Task.yield() }
      }
      lags.append(Swift.max(0, (seen! - returned).seconds * 1000))
    }
    await writer.close()
    following.stop()
    await reader.close()
    lags.sort()
    return (
      lags[lags.count / 2], lags[Swift.min(lags.count - 1, lags.count * 99 / 100)],
      lags.last ?? 0
    )
  }

  func pgbench(clients: Int) throws -> Double? {
    let script = folder + "/insert.sql"
    try "INSERT INTO bench_rows (x) VALUES (1);\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    _ = try? command(
      "psql",
      [
        "-h", folder, "-U", "susi", "-d", "bench", "-q", "-c",
        "CREATE TABLE IF NOT EXISTS bench_rows (id bigserial PRIMARY KEY, x int)",
      ], asServer: false)
    guard
      let output = try? command(
        "pgbench",
        [
          "-n", "-h", folder, "-U", "susi", "-f", script, "-c", String(clients), "-j",
          String(clients), "-T", String(seconds), "bench",
        ], asServer: false),
      let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
      let value = line.dropFirst(6).split(separator: " ").first.flatMap({ Double($0) })
    else { return nil }
    return value
  }

  // MARK: The cluster

  /// Starts the throw-away cluster; `serverOptions` are more `-c name=value` settings.
  func startCluster(serverOptions: String = "") throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    startedServers.withLock {
      $0[folder] = { [self] in
        _ = try? command("pg_ctl", ["-D", folder + "/data", "-m", "fast", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
      }
    }
    if geteuid() == 0, let nobody = getpwnam("nobody") {
      chown(folder, nobody.pointee.pw_uid, nobody.pointee.pw_gid)
    }
    try command(
      "initdb",
      ["-D", folder + "/data", "-U", "susi", "-A", "trust", "-E", "UTF8", "--locale=C"])
    try command(
      "pg_ctl",
      [
        "-D", folder + "/data", "-l", folder + "/server.log", "-w", "-o",
        "-c listen_addresses='' -k \(folder) \(serverOptions)", "start",
      ])
    try command("createdb", ["-h", folder, "-U", "susi", "bench"], asServer: false)
  }

  func stopCluster() { stopStartedServer(folder) }

  @discardableResult
  private func command(_ name: String, _ arguments: [String], asServer: Bool = true) throws
    -> String
  {
    var all = [binaries + "/" + name] + arguments
    if asServer && geteuid() == 0 {
      all = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + all
    }
    // Into a file, not a pipe (the server pg_ctl starts would keep a pipe open), and with
    // posix_spawn and waitpid.
    let output = folder + "/command.out"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let argv = all.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let variables: [String] = ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"]
    let environment = variables.map { strdup($0) } + [nil]
    defer { for pointer in environment { free(pointer) } }
    // With no signal blocked: this runs on a worker thread of the concurrency pool, whose mask
    // blocks most signals, and a child inherits the mask. pgbench ends a `-T` run on SIGALRM;
    // blocked, it never arrives and pgbench runs forever.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    guard posix_spawn(&pid, all[0], &actions, &attributes, argv, environment) == 0 else {
      throw BenchmarkFailure("cannot start \(name)")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    guard status == 0 else {
      throw BenchmarkFailure("\(name) failed: \(text)")
    }
    return text
  }
}

private struct BenchmarkFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

extension Duration {
  fileprivate var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
