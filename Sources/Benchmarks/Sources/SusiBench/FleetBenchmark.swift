// `susi-bench fleet`: two real `susi serve` nodes on one PostgreSQL log (a throw-away cluster
// with its durable defaults), under load from keep-alive connections posting intents to both.
//
// In the same run: one node on a file log under the same load (the anchor for intake; then
// again with `--fsync always`, which answers after the disk flush as the database does), pgbench
// inserting single rows on the same database with as many clients, and then the two nodes: their
// intake, the follow lag from node A's acknowledgement to node B's SSE stream, then at least 20
// `kill -9` of either node at random moments (each restarted at once) while the load goes on.
// Afterwards: every acknowledged intent is in the log once at its seq, seqs have no gap,
// `susi replay --verify` passes, the webhook subscriber (a receiver in this process) got every
// event in order, and the SSE stream on node B (reconnecting after each kill) saw every event in
// order.
//
// Options: --seconds=N (each measured phase, default 5), --kills=N (default 20),
// --connections=N (per node, default 16), --subscriber-during-intake (the webhook subscriber is
// added before intake is measured rather than after: the nodes then deliver every event to it
// meanwhile, which the file log's node it is compared with does not), --statements (the cluster
// loads pg_stat_statements, and the steady phase ends with every statement the database ran in it:
// calls and execution time per intent, rows per call).

import Foundation
import SusiHTTPServer
import SusiHTTPTypes
import SusiPostgres
import SusiPostgresLog
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

let fleetBenchmark = Benchmark(
  name: "fleet",
  summary: "two susi serve nodes on PostgreSQL: intake, follow lag, 20 kill -9s, nothing lost"
) { arguments in try await FleetBenchmark(arguments: arguments).run() }

private struct FleetBenchmark {
  let seconds: Double
  let kills: Int
  let connectionsPerNode: Int
  /// Whether the webhook subscriber is delivered to while intake is measured (by default it is
  /// added after: the one node on a file log it is compared with has none).
  let subscriberDuringIntake: Bool
  /// Whether the steady phase's statements are listed (from pg_stat_statements).
  let statements: Bool
  let arguments: [String]
  let directory: String

  init(arguments: [String]) {
    self.arguments = arguments
    seconds = option("--seconds", in: arguments).flatMap { Double($0) } ?? 5
    kills = option("--kills", in: arguments).flatMap { Int($0) } ?? 20
    connectionsPerNode = option("--connections", in: arguments).flatMap { Int($0) } ?? 16
    subscriberDuringIntake = arguments.contains("--subscriber-during-intake")
    statements = arguments.contains("--statements")
    directory = "/tmp/susi-bench-fleet-\(getpid())"
  }

  /// A rating the reducer refuses at once (two events, no network); `skill` makes each request's
  /// intent its own, so the log shows which request it is.
  static func body(_ tag: String) -> String {
    #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"\#(tag)","stars":9}}"#
  }

  func run() async throws {
    guard FileManager.default.isExecutableFile(atPath: builtSusi) else {
      report("(no susi binary at \(builtSusi); build it first: swift build -c release)")
      return
    }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let postgres = try PostgresBenchmark(arguments: ["--seconds=\(Int(seconds))"])
    let total = 2 * connectionsPerNode
    // pgbench opens a connection per client, beside the nodes' and the watch's own.
    var serverOptions = "-c max_connections=\(max(100, total + 50))"
    if statements {
      serverOptions +=
        " -c shared_preload_libraries=pg_stat_statements"
        + " -c pg_stat_statements.track=all"
    }
    try postgres.startCluster(serverOptions: serverOptions)
    defer { postgres.stopCluster() }
    let cluster = postgres.folder + "/data"
    let database = "postgresql:///bench?host=\(postgres.folder)&user=susi&log=fleet"
    report(
      "\(connectionsPerNode) connections per node posting submitRating (2 events each), "
        + "\(Int(seconds)) s per phase, PostgreSQL with fsync on; the webhook subscriber "
        + (subscriberDuringIntake ? "delivered to from the start" : "added after the intake phase"))

    // The anchors: one node on a file log, one node on the database, pgbench.
    var cpu = ""
    let fileRate = try oneNode(
      log: directory + "/file/events.jsonl", name: "file", total: total, cluster: cluster, cpu: &cpu
    )
    report(
      String(
        format: "one node, file log (fsync batch), %d conns:     %8.0f intents/s", total, fileRate))
    report(cpu)
    // The same file log answering only after its fdatasync, as the database log answers after
    // PostgreSQL's disk flush: the same promise to the caller.
    let flushedRate = try oneNode(
      log: directory + "/flushed/events.jsonl", name: "flushed", total: total, cluster: cluster,
      cpu: &cpu, arguments: ["--fsync", "always"])
    report(
      String(
        format: "one node, file log (fsync always), %d conns:    %8.0f intents/s", total,
        flushedRate))
    report(cpu)
    let oneDatabase = try oneNode(
      log: "postgresql:///bench?host=\(postgres.folder)&user=susi&log=single", name: "single",
      total: total, cluster: cluster, cpu: &cpu)
    report(
      String(
        format: "one node, database log, %d conns:               %8.0f intents/s", total,
        oneDatabase))
    report(cpu)
    let pgbench = try postgres.pgbench(clients: total)
    if let pgbench {
      report(
        String(
          format: "pgbench single-row INSERT, %d clients:          %8.0f rows/s", total, pgbench))
    } else {
      report("pgbench: not run (missing or failed)")
    }

    // The fleet.
    let environment = [
      "SUSI_EMBEDDED_PORT": "0", "HOME": directory, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
    ]
    let key = try runSusi(
      ["serve", "keys", "init", "--log", database, "--state-dir", directory + "/a"], environment
    )
    .trimmingCharacters(in: .whitespacesAndNewlines)
    let receiver = try FleetReceiver()
    let nodes = [
      FleetNode(name: "A", arguments: ["--log", database, "--state-dir", directory + "/a"]),
      FleetNode(name: "B", arguments: ["--log", database, "--state-dir", directory + "/b"]),
    ]
    for node in nodes { try node.start(environment: environment) }
    defer { for node in nodes { node.kill() } }
    let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    let subscriber =
      #"{"id":"bench","url":"\#(receiver.url)","secret":"\#(secret)","after":0}"#
    // The subscriber list lives in the database: adding it on one node adds it for both.
    func addSubscriber() throws {
      let added = FleetHTTP.request(
        port: nodes[0].port, "POST", "/admin/subscribers", key: key, body: subscriber)
      guard added?.status == 201 else {
        throw FleetFailure("cannot add the subscriber: \(added?.body ?? "no answer")")
      }
    }
    if subscriberDuringIntake { try addSubscriber() }
    let stream = FleetStream(node: nodes[1], key: key)
    stream.start()
    let load = FleetLoad(nodes: nodes, connectionsPerNode: connectionsPerNode, key: key)
    load.start()

    // Steady: intake and follow lag; how large the groups are (each commit sends one NOTIFY)
    // and how often a node waits for the other's append lock.
    let statementCounter = statements ? try StatementCounter(uri: database) : nil
    let watch = try DatabaseWatch(uri: database)
    watch.start()
    let cpuBefore = CPUSample(cluster: cluster, excluding: watch.backends)
    let steadyStart = FleetClock.now
    usleep(UInt32(seconds * 1_000_000))
    let steadyEnd = FleetClock.now
    let cpuAfter = CPUSample(cluster: cluster, excluding: watch.backends)
    let (groups, samples, waiting) = watch.stop()
    let steady = load.acknowledged(between: steadyStart, and: steadyEnd)
    let steadyRate = Double(steady.count) / (Double(steadyEnd - steadyStart) / 1e9)
    report(
      String(
        format: "two nodes, database log, %d+%d conns:            %8.0f intents/s",
        connectionsPerNode, connectionsPerNode, steadyRate))
    report(
      String(format: "  vs one node on the file log:  %.2fx  (goal ≥ 0.50)", steadyRate / fileRate))
    report(
      String(format: "  vs the file log, fsync always: %.2fx", steadyRate / flushedRate))
    report(String(format: "  vs one node on the database:  %.2fx", steadyRate / oneDatabase))
    if let pgbench {
      report(
        String(
          format: "  vs pgbench, %d clients:       %.2fx  (goal > 1)", total, steadyRate / pgbench))
    }
    report(
      String(
        format:
          "  %.0f group commits/s, %.1f events per commit; a node waited for the append lock in %.0f%% of %d samples",
        Double(groups) / seconds, Double(2 * steady.count) / Double(max(1, groups)),
        100 * Double(waiting) / Double(max(1, samples)), samples))
    report(cpuAfter.report(since: cpuBefore, intents: steady.count))
    if let statementCounter { report(try statementCounter.report(intents: steady.count)) }
    let arrivals = stream.arrivals
    var lags: [Double] = []
    var missing = 0
    for ack in steady where ack.node == 0 {
      guard let seen = arrivals[ack.seq] else {
        missing += 1
        continue
      }
      lags.append(max(0, Double(Int64(seen) - Int64(ack.at)) / 1e6))
    }
    lags.sort()
    if lags.isEmpty {
      report("follow lag A → SSE on B: nothing measured")
    } else {
      report(
        String(
          format:
            "follow lag, A's acknowledgement → B's SSE stream: p50 %.2f ms, p99 %.2f ms, max %.2f ms  (%d events%@; goal p99 ≤ 10 ms)",
          lags[lags.count / 2], lags[min(lags.count - 1, lags.count * 99 / 100)], lags.last!,
          lags.count, missing == 0 ? "" : ", \(missing) not streamed"))
    }

    // The subscriber gets every event from the first, delivered while the kills go on.
    if !subscriberDuringIntake { try addSubscriber() }

    // Kills: either node, at random moments, restarted at once; the load goes on.
    var killed = [0, 0]
    let killsStart = FleetClock.now
    for _ in 0..<kills {
      usleep(UInt32.random(in: 200_000...1_200_000))
      let index = Int.random(in: 0...1)
      killed[index] += 1
      nodes[index].kill()
      try nodes[index].start(environment: environment)
    }
    usleep(500_000)
    load.stop()
    let killsEnd = FleetClock.now
    let duringKills = load.acknowledged(between: killsStart, and: killsEnd).count
    report(
      String(
        format:
          "%d kill -9 (A %d, B %d) over %.1f s under load: %d intents acknowledged (%.0f/s), %d requests cut off by a kill",
        kills, killed[0], killed[1], Double(killsEnd - killsStart) / 1e9, duringKills,
        Double(duringKills) / (Double(killsEnd - killsStart) / 1e9), load.cutOff))

    try await check(
      nodes: nodes, key: key, database: database, load: load, stream: stream,
      receiver: receiver, environment: environment)
    stream.stop()
    for node in nodes { node.stop() }
    await receiver.stop()
  }

  /// Waits for the fleet to settle, then checks the log, the stream and the subscriber.
  private func check(
    nodes: [FleetNode], key: String, database: String, load: FleetLoad, stream: FleetStream,
    receiver: FleetReceiver, environment: [String: String]
  ) async throws {
    let acks = load.acknowledged(between: 0, and: UInt64.max)
    // Requests in flight on a killed node are closed as interrupted by a live node within
    // seconds; every intent then has its result, and the log stops growing.
    let settleStart = FleetClock.now
    var last = 0
    var stableSince = FleetClock.now
    while FleetClock.now - settleStart < 120_000_000_000 {
      let now = FleetHTTP.lastSeq(port: nodes[0].port, key: key) ?? last
      if now != last {
        last = now
        stableSince = FleetClock.now
      } else if FleetClock.now - stableSince > 6_000_000_000 {
        break
      }
      usleep(100_000)
    }
    // The subscriber and the stream catch up (a lease held by a killed node expires first).
    let waitStart = FleetClock.now
    while FleetClock.now - waitStart < 120_000_000_000
      && (receiver.contiguous < last || stream.contiguous < last)
    {
      usleep(100_000)
    }
    let copy = directory + "/copy.jsonl"
    _ = try runSusi(["log", "copy", database, copy], environment)
    let lines = try String(contentsOfFile: copy, encoding: .utf8).split(separator: "\n")
    var gapFree = true
    var bySeq: [String: [Int]] = [:]
    for (index, line) in lines.enumerated() {
      if !line.hasPrefix(#"{"v":2,"seq":\#(index + 1),"#) { gapFree = false }
      if line.contains(#""type":"submitRating""#),
        let range = line.range(of: #""skill":""#)
      {
        let tag = String(line[range.upperBound...].prefix { $0 != "\"" })
        bySeq[tag, default: []].append(index + 1)
      }
    }
    let exactlyOnce = acks.filter { bySeq[$0.tag] == [$0.seq] }.count
    let twice = bySeq.values.filter { $0.count > 1 }.count
    let verify = try runSusi(["replay", database, "--verify"], environment)
    let receivedAll = receiver.contiguous >= lines.count
    let streamedAll = stream.contiguous >= lines.count
    func verdict(_ ok: Bool) -> String { ok ? "ok" : "FAILED" }
    report(
      "log: \(lines.count) events, seqs gap-free: \(verdict(gapFree)); acknowledged intents "
        + "\(acks.count), in the log once at their seq: \(exactlyOnce) "
        + "(\(verdict(exactlyOnce == acks.count))); intents logged twice: \(twice)")
    report("replay --verify: \(verify.split(separator: "\n").first ?? "")")
    report(
      "subscriber: every event in order through \(receiver.contiguous) of \(lines.count) "
        + "(\(verdict(receivedAll && receiver.outOfOrder == 0))), \(receiver.repeats) repeated "
        + "deliveries, \(receiver.outOfOrder) out of order")
    report(
      "SSE on node B (reconnecting after kills): every event in order through "
        + "\(stream.contiguous) of \(lines.count) (\(verdict(streamedAll && stream.gaps == 0))), "
        + "\(stream.reconnects) reconnects, \(stream.gaps) gaps")
  }

  /// One `susi serve` on `log` under `total` connections for `seconds`: acknowledged intents
  /// a second.
  private func oneNode(
    log: String, name: String, total: Int, cluster: String, cpu: inout String,
    arguments: [String] = []
  ) throws -> Double {
    let environment = [
      "SUSI_EMBEDDED_PORT": "0", "HOME": directory, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
    ]
    let state = directory + "/" + name
    let key = try runSusi(
      ["serve", "keys", "init", "--log", log, "--state-dir", state], environment
    )
    .trimmingCharacters(in: .whitespacesAndNewlines)
    let node = FleetNode(name: name, arguments: ["--log", log, "--state-dir", state] + arguments)
    try node.start(environment: environment)
    defer { node.stop() }
    let load = FleetLoad(nodes: [node], connectionsPerNode: total, key: key)
    load.start()
    usleep(300_000)
    let cpuBefore = CPUSample(cluster: cluster)
    let start = FleetClock.now
    usleep(UInt32(seconds * 1_000_000))
    let end = FleetClock.now
    let cpuAfter = CPUSample(cluster: cluster)
    load.stop()
    let acknowledged = load.acknowledged(between: start, and: end).count
    cpu = cpuAfter.report(since: cpuBefore, intents: acknowledged)
    return Double(acknowledged) / (Double(end - start) / 1e9)
  }

  /// Runs the release `susi` to its end; its stdout, or an error with its stderr.
  @discardableResult
  private func runSusi(_ arguments: [String], _ environment: [String: String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: builtSusi)
    process.arguments = arguments
    process.environment = environment
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let problem = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw FleetFailure(
        "susi \(arguments.prefix(2).joined(separator: " ")) failed: "
          + String(decoding: problem, as: UTF8.self))
    }
    return String(decoding: data, as: UTF8.self)
  }
}

/// Watches the fleet's database on connections of its own: counts the log's notifications (one
/// per group commit) and samples whether a node waits for the append lock (an advisory lock not
/// granted), every 50 ms (reading `pg_locks` takes every lock partition of the server: every
/// 10 ms it took an eighth of the server's CPU time, away from the appends it watches).
private final class DatabaseWatch: @unchecked Sendable {
  let location: PostgresLogLocation
  private let stopped = Atomic<Bool>(false)
  private let result = Mutex<(groups: Int, samples: Int, waiting: Int)>((0, 0, 0))
  private let done = DispatchGroup()
  /// The server processes of its connections (once both are open): their CPU is the watch's,
  /// not the fleet's.
  private let serverProcesses = Mutex<Set<Int32>>([])
  private let opened = DispatchSemaphore(value: 0)

  init(uri: String) throws { location = try PostgresLogLocation(uri) }

  var backends: Set<Int32> { serverProcesses.withLock { $0 } }

  private func note(_ connection: PostgresConnection?) {
    if let pid = (try? connection?.execute("SELECT pg_backend_pid()"))?.int(0, 0) {
      serverProcesses.withLock { _ = $0.insert(Int32(pid)) }
    }
    opened.signal()
  }

  func start() {
    let location = self.location
    done.enter()
    Thread { [self] in
      defer { done.leave() }
      let connection = try? PostgresConnection(location.database)
      note(connection)
      guard let connection, (try? connection.listen(location.channel)) != nil else { return }
      defer { connection.close() }
      while !stopped.load(ordering: .acquiring) {
        let received = (try? connection.waitForNotifications(timeoutMilliseconds: 50)) ?? []
        result.withLock { $0.groups += received.count }
      }
    }.start()
    done.enter()
    Thread { [self] in
      defer { done.leave() }
      let connection = try? PostgresConnection(location.database)
      note(connection)
      guard let connection else { return }
      defer { connection.close() }
      while !stopped.load(ordering: .acquiring) {
        let waiters =
          (try? connection.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))?
          .int(0, 0) ?? 0
        result.withLock {
          $0.samples += 1
          if waiters > 0 { $0.waiting += 1 }
        }
        usleep(50_000)
      }
    }.start()
    // Both connections open (and their server processes known) before the fleet is measured.
    opened.wait()
    opened.wait()
  }

  func stop() -> (groups: Int, samples: Int, waiting: Int) {
    stopped.store(true, ordering: .releasing)
    done.wait()
    return result.withLock { $0 }
  }
}

/// Lists the statements the database ran from its start to `report` (pg_stat_statements, which
/// the cluster loads with `--statements`): for each, calls and execution time per intent, rows
/// per call, busiest first.
private struct StatementCounter {
  let connection: PostgresConnection

  init(uri: String) throws {
    connection = try PostgresConnection(try PostgresLogLocation(uri).database)
    try connection.execute(
      "CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()")
  }

  func report(intents: Int) throws -> String {
    let result = try connection.execute(
      """
      SELECT calls, total_exec_time, rows, regexp_replace(query, '\\s+', ' ', 'g')
      FROM pg_stat_statements ORDER BY calls DESC LIMIT 30
      """)
    let per = Double(max(1, intents))
    var lines = [
      String(format: "  statements in the steady phase, per intent (%d intents):", intents),
      "    calls/intent  µs/intent  rows/call  statement",
    ]
    var calls = 0.0
    var time = 0.0
    for row in 0..<result.count {
      let count = Double(result.int(row, 0) ?? 0)
      let milliseconds = Double(result.text(row, 1) ?? "") ?? 0
      let rows = Double(result.int(row, 2) ?? 0)
      calls += count
      time += milliseconds
      lines.append(
        String(
          format: "    %12.3f  %9.2f  %9.1f  %@", count / per, 1000 * milliseconds / per,
          rows / max(1, count), String((result.text(row, 3) ?? "").prefix(110))))
    }
    lines.append(
      String(format: "    %12.3f  %9.2f             (all listed)", calls / per, 1000 * time / per))
    connection.close()
    return lines.joined(separator: "\n")
  }
}

/// CPU time so far: the machine's (busy and all, from /proc/stat) and that of the nodes (this
/// process's children), PostgreSQL (the benchmark's own server, `postmaster`, and its children)
/// and this process (the load), in clock ticks, from each process's /proc/PID/stat; other
/// processes on the machine (another PostgreSQL too) count as others'.
private struct CPUSample {
  var busy = 0
  var all = 0
  var byName: [String: Int] = [:]

  /// `cluster`: the data folder of the benchmark's PostgreSQL (its `postmaster.pid` names it);
  /// `excluding`: its server processes that serve the benchmark's own watch, not the fleet.
  init(cluster: String, excluding: Set<Int32> = []) {
    if let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
      let first = text.split(separator: "\n").first
    {
      let ticks = first.split(separator: " ").dropFirst().compactMap { Int($0) }
      all = ticks.reduce(0, +)
      // idle and iowait are the 4th and 5th.
      busy = all - (ticks.count > 4 ? ticks[3] + ticks[4] : 0)
    }
    let postmaster = (try? String(contentsOfFile: cluster + "/postmaster.pid", encoding: .utf8))?
      .split(separator: "\n").first.flatMap { Int32($0) }
    let me = getpid()
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let pid = Int32(entry), !excluding.contains(pid),
        let text = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
      else { continue }
      let fields = text[text.index(after: close)...].split(separator: " ")
      // After the name: state, ppid, …, utime (the 12th), stime (the 13th).
      guard fields.count > 12, let parent = Int32(fields[1]), let user = Int(fields[11]),
        let system = Int(fields[12])
      else { continue }
      let name: String
      if pid == me {
        name = "load"
      } else if parent == me {
        name = "susi"
      } else if pid == postmaster || (postmaster != nil && parent == postmaster) {
        name = "postgres"
      } else {
        continue
      }
      byName[name, default: 0] += user + system
    }
  }

  /// CPU per intent of each part, and how busy the machine was, since `before`.
  func report(since before: CPUSample, intents: Int) -> String {
    let tick = 1e6 / Double(sysconf(Int32(_SC_CLK_TCK)))
    func perIntent(_ name: String) -> Double {
      Double((byName[name] ?? 0) - (before.byName[name] ?? 0)) * tick / Double(max(1, intents))
    }
    let cores = Double(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    return String(
      format:
        "  CPU per intent: nodes %.0f µs, PostgreSQL %.0f µs, load %.0f µs; machine busy %.0f%% of %.0f cores (others' share %.0f%%)",
      perIntent("susi"), perIntent("postgres"), perIntent("load"),
      100 * Double(busy - before.busy) / Double(max(1, all - before.all)), cores,
      100
        * (Double(busy - before.busy)
          - Double(
            ["susi", "postgres", "load"].map { (byName[$0] ?? 0) - (before.byName[$0] ?? 0) }
              .reduce(0, +))) / Double(max(1, all - before.all)))
  }
}

/// Monotonic nanoseconds.
private enum FleetClock {
  static var now: UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}

/// One `susi serve` process, restartable; its port while it runs (0 while it does not).
private final class FleetNode: @unchecked Sendable {
  let name: String
  let arguments: [String]
  private let state = Mutex<(process: Process?, port: Int)>((nil, 0))

  init(name: String, arguments: [String]) {
    self.name = name
    self.arguments = arguments
  }

  var port: Int { state.withLock { $0.port } }

  /// Starts the node and waits until it prints its address.
  func start(environment: [String: String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: builtSusi)
    process.arguments =
      ["serve", "--port", "0", "--allow-private-targets", "--log-level", "error"] + arguments
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let pid = process.processIdentifier
    startedServers.withLock { $0["node \(pid)"] = { _ = Glibc.kill(pid, SIGKILL) } }
    var line: [UInt8] = []
    while true {
      let chunk = output.fileHandleForReading.readData(ofLength: 1)
      guard let byte = chunk.first else {
        throw FleetFailure("node \(name) did not start (no address printed)")
      }
      if byte == 0x0A { break }
      line.append(byte)
    }
    guard
      let port = String(decoding: line, as: UTF8.self).split(separator: ":").last
        .flatMap({ Int($0) })
    else { throw FleetFailure("node \(name) printed no address") }
    state.withLock { $0 = (process, port) }
  }

  /// The running process, no longer this node's (nil when none runs).
  private func forgetProcess() -> Process? {
    let process = state.withLock { s in
      defer { s = (nil, 0) }
      return s.process
    }
    if let pid = process?.processIdentifier {
      _ = startedServers.withLock { $0.removeValue(forKey: "node \(pid)") }
    }
    return process
  }

  /// `kill -9`, and waits for the process to end.
  func kill() {
    guard let process = forgetProcess() else { return }
    Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// SIGTERM, and waits for the process to end.
  func stop() {
    guard let process = forgetProcess() else { return }
    process.terminate()
    process.waitUntilExit()
  }
}

/// Keep-alive connections posting intents to the nodes, as fast as they are answered; each
/// acknowledgement is kept with its seq, its request's tag and when it arrived.
private final class FleetLoad: @unchecked Sendable {
  struct Ack {
    var seq: Int
    var tag: String
    var at: UInt64
    var node: Int
  }

  let nodes: [FleetNode]
  let connectionsPerNode: Int
  let key: String
  private let stopped = Atomic<Bool>(false)
  private let acks = Mutex<[Ack]>([])
  private let cutOffCount = Atomic<Int>(0)
  private let done = DispatchGroup()

  init(nodes: [FleetNode], connectionsPerNode: Int, key: String) {
    self.nodes = nodes
    self.connectionsPerNode = connectionsPerNode
    self.key = key
  }

  /// Requests sent whose answer never came (the node was killed meanwhile).
  var cutOff: Int { cutOffCount.load(ordering: .acquiring) }

  func start() {
    for (index, node) in nodes.enumerated() {
      for connection in 0..<connectionsPerNode {
        done.enter()
        let thread = Thread { [self] in
          run(node: node, index: index, connection: connection)
          done.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
      }
    }
  }

  func stop() {
    stopped.store(true, ordering: .releasing)
    done.wait()
  }

  func acknowledged(between start: UInt64, and end: UInt64) -> [Ack] {
    acks.withLock { $0.filter { $0.at >= start && $0.at < end } }
  }

  private func run(node: FleetNode, index: Int, connection: Int) {
    var socket: FleetHTTP.Connection?
    var n = 0
    while !stopped.load(ordering: .acquiring) {
      let port = node.port
      if socket == nil || socket?.port != port {
        socket?.close()
        socket = port == 0 ? nil : FleetHTTP.Connection(port: port)
        if socket == nil {
          usleep(10_000)
          continue
        }
      }
      n += 1
      let tag = "\(node.name)-\(connection)-\(n)"
      let body = FleetBenchmark.body(tag)
      let request =
        "POST /actions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\n"
        + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
      guard let response = socket?.exchange(Array(request.utf8)) else {
        cutOffCount.add(1, ordering: .relaxed)
        socket?.close()
        socket = nil
        continue
      }
      if response.status == 202, let seq = FleetHTTP.seq(in: response.body) {
        let ack = Ack(seq: seq, tag: tag, at: FleetClock.now, node: index)
        acks.withLock { $0.append(ack) }
      }
    }
    socket?.close()
  }
}

/// An SSE stream on a node, reconnecting after the last event seen whenever the node goes away;
/// when each event first arrived, and whether they came in order without a gap.
private final class FleetStream: @unchecked Sendable {
  let node: FleetNode
  let key: String
  private struct Seen {
    var arrivals: [Int: UInt64] = [:]
    var contiguous = 0
    var gaps = 0
    var reconnects = 0
  }
  private let seen = Mutex(Seen())
  private let stopped = Atomic<Bool>(false)
  private let done = DispatchSemaphore(value: 0)

  init(node: FleetNode, key: String) {
    self.node = node
    self.key = key
  }

  var arrivals: [Int: UInt64] { seen.withLock { $0.arrivals } }
  var contiguous: Int { seen.withLock { $0.contiguous } }
  var gaps: Int { seen.withLock { $0.gaps } }
  var reconnects: Int { seen.withLock { $0.reconnects } }

  func start() {
    let thread = Thread { [self] in
      var connections = 0
      while !stopped.load(ordering: .acquiring) {
        if follow() {
          connections += 1
          if connections > 1 { seen.withLock { $0.reconnects += 1 } }
        }
        if !stopped.load(ordering: .acquiring) { usleep(2000) }
      }
      done.signal()
    }
    thread.start()
  }

  func stop() {
    stopped.store(true, ordering: .releasing)
    done.wait()
  }

  /// One connection: reads events until it breaks (or the benchmark stops). False when it
  /// could not connect.
  @discardableResult
  private func follow() -> Bool {
    let port = node.port
    guard port != 0, let connection = FleetHTTP.Connection(port: port, timeoutSeconds: 1) else {
      return false
    }
    defer { connection.close() }
    let after = contiguous
    let request =
      "GET /events/stream?after=\(after) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      + "Authorization: Bearer \(key)\r\n\r\n"
    guard connection.send(Array(request.utf8)) else { return true }
    var text: [UInt8] = []
    var headDone = false
    while !stopped.load(ordering: .acquiring) {
      guard let chunk = connection.receive() else {
        // A timeout only: the node may just be idle. Anything else ends the connection.
        if connection.timedOut && node.port == port { continue }
        return true
      }
      let now = FleetClock.now
      text += chunk
      if !headDone {
        guard let end = FleetHTTP.find([13, 10, 13, 10], in: text) else { continue }
        guard String(decoding: text[..<end], as: UTF8.self).hasPrefix("HTTP/1.1 200") else {
          return true
        }
        text.removeFirst(end + 4)
        headDone = true
      }
      // Chunked framing lines and heartbeats carry no `id:`; each `id: N` line is an event.
      var start = 0
      var ids: [Int] = []
      while let newline = text[start...].firstIndex(of: 10) {
        let line = text[start..<newline]
        if line.starts(with: Array("id: ".utf8)),
          let id = Int(String(decoding: line.dropFirst(4), as: UTF8.self))
        {
          ids.append(id)
        }
        start = newline + 1
      }
      text.removeFirst(start)
      guard !ids.isEmpty else { continue }
      seen.withLock { seen in
        for id in ids {
          if seen.arrivals[id] == nil { seen.arrivals[id] = now }
          if id == seen.contiguous + 1 {
            seen.contiguous = id
          } else if id > seen.contiguous + 1 {
            seen.gaps += 1
          }
        }
      }
    }
    return true
  }
}

/// The webhook subscriber: a server on 127.0.0.1 recording each delivery's seq
/// (`webhook-id: evt_<seq>`), answering 204.
private final class FleetReceiver: HTTPHandler {
  private struct Seen {
    var contiguous = 0
    var repeats = 0
    var outOfOrder = 0
  }
  private let seen = Mutex(Seen())
  private let server: HTTPServer
  let url: String

  init() throws {
    let box = ReceiverBox()
    let server = HTTPServer(
      configuration: .init(host: "127.0.0.1", port: 0, eventLoopCount: 1), handler: box)
    url = "http://127.0.0.1:\(try server.start())/hook"
    self.server = server
    box.receiver.withLock { $0 = self }
  }

  var contiguous: Int { seen.withLock { $0.contiguous } }
  var repeats: Int { seen.withLock { $0.repeats } }
  var outOfOrder: Int { seen.withLock { $0.outOfOrder } }

  func handle(_ request: HTTPRequest) async -> HTTPResponse {
    let id = request.headers["webhook-id"] ?? ""
    if id.hasPrefix("evt_"), let seq = Int(id.dropFirst(4)) {
      seen.withLock { seen in
        if seq == seen.contiguous + 1 {
          seen.contiguous = seq
        } else if seq <= seen.contiguous {
          seen.repeats += 1
        } else {
          seen.outOfOrder += 1
        }
      }
    }
    return HTTPResponse(status: 204)
  }

  func stop() async { await server.shutdown() }

  private final class ReceiverBox: HTTPHandler {
    let receiver = Mutex<FleetReceiver?>(nil)
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
      guard let receiver = receiver.withLock({ $0 }) else { return HTTPResponse(status: 503) }
      return await receiver.handle(request)
    }
  }
}

/// Plain HTTP/1.1 over a blocking loopback socket.
private enum FleetHTTP {
  struct Response {
    var status: Int
    var body: String
  }

  final class Connection {
    let port: Int
    private var fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    private(set) var timedOut = false

    init?(port: Int, timeoutSeconds: Int = 30) {
      self.port = port
      fd = connectToLoopback(port: port)
      guard fd >= 0 else { return nil }
      var limit = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    func close() {
      if fd >= 0 { Glibc.close(fd) }
      fd = -1
    }

    func send(_ bytes: [UInt8]) -> Bool {
      var sent = 0
      while sent < bytes.count {
        let n = bytes.withUnsafeBytes {
          Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
        }
        if n <= 0 { return false }
        sent += n
      }
      return true
    }

    /// What arrived next; nil when the connection ended or the read timed out (`timedOut`).
    func receive() -> [UInt8]? {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
      timedOut = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
      guard n > 0 else { return nil }
      return Array(buffer[..<n])
    }

    /// Sends a request and reads one response with a `Content-Length` body.
    func exchange(_ request: [UInt8]) -> Response? {
      guard send(request) else { return nil }
      var pending: [UInt8] = []
      var headEnd: Int?
      while headEnd == nil {
        guard let chunk = receive() else { return nil }
        pending += chunk
        headEnd = find([13, 10, 13, 10], in: pending)
      }
      let head = String(decoding: pending[..<headEnd!], as: UTF8.self)
      guard head.count >= 12, let status = Int(head.dropFirst(9).prefix(3)) else { return nil }
      var length = 0
      for line in head.split(separator: "\r\n").dropFirst()
      where line.lowercased().hasPrefix("content-length:") {
        length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
      }
      while pending.count < headEnd! + 4 + length {
        guard let chunk = receive() else { return nil }
        pending += chunk
      }
      let body = String(decoding: pending[(headEnd! + 4)..<(headEnd! + 4 + length)], as: UTF8.self)
      return Response(status: status, body: body)
    }
  }

  static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for start in 0...(haystack.count - needle.count)
    where haystack[start..<(start + needle.count)].elementsEqual(needle) {
      return start
    }
    return nil
  }

  static func request(
    port: Int, _ method: String, _ target: String, key: String, body: String = ""
  ) -> Response? {
    guard let connection = Connection(port: port) else { return nil }
    defer { connection.close() }
    var request =
      "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\n"
    if method == "POST" {
      request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
    }
    return connection.exchange(Array((request + "\r\n" + body).utf8))
  }

  /// The log's last seq, as `GET /events` reports it.
  static func lastSeq(port: Int, key: String) -> Int? {
    guard
      let response = Connection(port: port).flatMap({ connection -> [UInt8]? in
        defer { connection.close() }
        let request =
          "GET /events?after=0&limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Authorization: Bearer \(key)\r\n\r\n"
        guard connection.send(Array(request.utf8)), let head = connection.receive() else {
          return nil
        }
        return head
      })
    else { return nil }
    let text = String(decoding: response, as: UTF8.self)
    guard let range = text.range(of: "X-Last-Seq: ", options: .caseInsensitive) else {
      return nil
    }
    return Int(text[range.upperBound...].prefix { $0.isNumber })
  }

  /// The `seq` of a `{"seq":N}` answer.
  static func seq(in text: String) -> Int? {
    guard let range = text.range(of: #""seq":"#) else { return nil }
    return Int(text[range.upperBound...].prefix { $0.isNumber })
  }
}

private struct FleetFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
