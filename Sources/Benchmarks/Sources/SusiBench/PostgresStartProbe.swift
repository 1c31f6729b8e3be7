// susi-bench pgstart --uri=URI [--events=N] [--tail=N] [--rounds=N]
// [--only=long|fresh|phases|timeline]: starts on a database log of a running cluster, over and
// over, against starts on a fresh log in the same database, alternately: the figures of
// `susi-bench postgres`'s start rows without building a cluster and a 1M-event log each run, and
// a process that does little but start, for `perf record` and `perf stat` (`--only=long`).
// `--only=phases` times each step alone; `--only=timeline` shows when each step of real starts
// ended (the snapshot's decoding on its own thread among them).
//
// URI names the database (`postgresql:///bench?host=/tmp/pg&user=susi`); the logs are the tables
// `pgstart_long` and `pgstart_fresh`. The long log is filled with N realistic events (1,000,000 by
// default) the first time, and a first start on it writes the snapshot at its end; with
// `--tail=T` it holds T events more and the snapshots after event N are deleted, so every start
// replays those T events.

import Foundation
import SusiClock
import SusiCore
import SusiEventLog
import SusiPostgres
import SusiPostgresLog
import SusiStore

let postgresStartProbe = Benchmark(
  name: "pgstart",
  summary: "starts on a database log of a running cluster, repeated (for perf), vs a fresh log",
  run: { arguments in try await PostgresStartProbe(arguments: arguments).run() })

struct PostgresStartProbe {
  let uri: String
  let events: Int
  let tail: Int
  let rounds: Int
  let only: String?
  let bench: PostgresBenchmark

  init(arguments: [String]) throws {
    guard let uri = option("--uri", in: arguments) else {
      throw BenchFailure("pgstart needs --uri=postgresql:///DB?host=…&user=…")
    }
    self.uri = uri
    events = option("--events", in: arguments).flatMap { Int($0) } ?? 1_000_000
    tail = option("--tail", in: arguments).flatMap { Int($0) } ?? 0
    rounds = option("--rounds", in: arguments).flatMap { Int($0) } ?? 30
    only = option("--only", in: arguments)
    bench = try PostgresBenchmark(arguments: arguments)
  }

  func run() async throws {
    let long = try PostgresLogLocation(uri + "&log=pgstart_long")
    let fresh = try PostgresLogLocation(uri + "&log=pgstart_fresh")
    let connection = try PostgresEventLog.connect(long)
    defer { connection.close() }
    func lastSeq() throws -> Int {
      try connection.execute("SELECT coalesce(max(seq), 0) FROM pgstart_long").int(0, 0) ?? 0
    }
    var last = try lastSeq()
    if last < events {
      print("filling pgstart_long with events \(last + 1)…\(events)")
      try bench.insertRealistic((last + 1)...events, into: long)
      last = events
    }
    let snapshots = PostgresSnapshots(location: long)
    if try snapshots.seqs(on: connection).first.map({ $0 < events }) ?? true {
      print("writing the snapshot at \(events) (a start replaying what no snapshot covers)")
      try await PostgresBenchmark.startAndStopWritingASnapshot(long)
    }
    if last < events + tail {
      print("adding the tail \(last + 1)…\(events + tail)")
      try bench.insertRealistic((last + 1)...(events + tail), into: long)
    }
    try connection.execute(
      "DELETE FROM susi_snapshots WHERE log = 'pgstart_long' AND seq > \(events)")
    if last > events + tail {
      try connection.execute("DELETE FROM pgstart_long WHERE seq > \(events + tail)")
    }
    _ = try await bench.start(fresh)
    if only == "phases" {
      try phases(long)
      return
    }
    if only == "timeline" {
      try timeline(fresh: fresh, long: long)
      return
    }

    var walls: [String: [Double]] = ["fresh": [], "long": []]
    var cpus: [String: [Double]] = ["fresh": [], "long": []]
    var threads: [String: [Double]] = ["fresh": [], "long": []]
    for _ in 0..<rounds {
      for (name, location) in [("fresh", fresh), ("long", long)]
      where only.map({ $0 == name }) ?? true {
        let before = cpuMilliseconds()
        walls[name, default: []].append(try await bench.start(location))
        cpus[name, default: []].append(cpuMilliseconds() - before)
        threads[name, default: []].append(try openThreadCPU(location))
      }
    }
    for name in ["fresh", "long"] {
      guard let wall = walls[name], !wall.isEmpty, let cpu = cpus[name] else { continue }
      print(
        String(
          format:
            "%@ (%d events, tail %d): wall best %.2f ms, median %.2f ms; CPU best %.2f ms, median %.2f ms",
          name, name == "fresh" ? 0 : events + tail, name == "fresh" ? 0 : tail, wall.min()!,
          median(wall), cpu.min()!, median(cpu)))
    }
    for name in ["fresh", "long"] {
      guard let cpu = threads[name], !cpu.isEmpty else { continue }
      print(
        String(
          format: "%@: CPU of the thread that opens the log, during the open: best %.2f ms, "
            + "median %.2f ms", name, cpu.min()!, median(cpu)))
    }
    if let f = walls["fresh"], let l = walls["long"], !f.isEmpty, !l.isEmpty {
      print(
        String(
          format: "long vs fresh: best %.2fx, median %.2fx", l.min()! / f.min()!,
          median(l) / median(f)))
    }
  }

  /// The steps of a start on `location`, each timed alone (best of the rounds), in ms.
  private func phases(_ location: PostgresLogLocation) throws {
    var best: [String: Double] = [:]
    var order: [String] = []
    for _ in 0..<rounds {
      var last = ContinuousClock.now
      func lap(_ name: String) {
        let now = ContinuousClock.now
        let took =
          Double((now - last).components.attoseconds) / 1e15
          + Double((now - last).components.seconds) * 1000
        if best[name] == nil { order.append(name) }
        best[name] = min(best[name] ?? .infinity, took)
        last = now
      }
      let connection = try PostgresConnection(location.database)
      lap("connect")
      _ = try PostgresEventLog.connect(location).close()
      last = ContinuousClock.now
      let again = try PostgresConnection(location.database)
      lap("connect again")
      let key = "1398100739, 77"
      _ = try connection.execute("SELECT pg_try_advisory_lock(\(key))")
      lap("try lock")
      _ = try connection.execute("SELECT pg_advisory_unlock(\(key))")
      lap("unlock")
      _ = try connection.execute(
        "SELECT version FROM susi_log_schema WHERE log = $1", [.text(location.table)])
      lap("version")
      let seqs = try PostgresSnapshots(location: location).seqs(on: connection)
      lap("snapshot seqs")
      let row = try connection.execute(
        "SELECT snapshot FROM susi_snapshots WHERE log = $1 AND seq = $2",
        [.text(location.table), .int(seqs[0])], binaryResult: true)
      lap("snapshot fetch")
      let snapshot = try Snapshot(decoding: row.bytes(0, 0)!)
      lap("snapshot decode")
      _ = try connection.execute(
        "SELECT line FROM \(location.table) WHERE seq = $1", [.int(seqs[0])], binaryResult: true)
      lap("record fetch")
      _ = try PostgresEventLog.lines(
        after: snapshot.checkpoint.seq, location: location, on: connection)
      lap("tail")
      connection.close()
      again.close()
    }
    for name in order { print(String(format: "%-16@ %6.3f ms", name, best[name]!)) }
  }

  /// When each step of a start ended (`PostgresLogRecovery.StartTimeline`), on the fresh and on
  /// the long log alternately: the median over the rounds of each, in ms from the start's
  /// beginning.
  private func timeline(fresh: PostgresLogLocation, long: PostgresLogLocation) throws {
    var times: [String: [String: [Double]]] = [:]
    var order: [String: [String]] = [:]
    for _ in 0..<rounds {
      for (name, location) in [("fresh", fresh), ("long", long)] {
        let node = try PostgresLogRecovery.open(location)
        node.sink.close()
        for step in node.timeline.steps {
          if times[name, default: [:]][step.name] == nil {
            order[name, default: []].append(step.name)
          }
          let ms =
            Double(step.at.components.seconds) * 1000
            + Double(step.at.components.attoseconds) / 1e15
          times[name, default: [:]][step.name, default: []].append(ms)
        }
      }
    }
    for name in ["fresh", "long"] {
      print("\(name): median ms from the start's beginning (best in brackets)")
      for step in order[name] ?? [] {
        let values = times[name]?[step] ?? []
        print(String(format: "  %-36@ %7.3f  (%.3f)", step, median(values), values.min() ?? 0))
      }
    }
  }

  /// The CPU time the calling thread spends in one open of the log (what is left on the start's
  /// critical path when the work handed to other threads overlaps it), in milliseconds; the
  /// opened log is closed again (not counted).
  private func openThreadCPU(_ location: PostgresLogLocation) throws -> Double {
    func now() -> Double {
      var time = timespec()
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
      return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }
    let before = now()
    let node = try PostgresLogRecovery.open(location)
    let took = now() - before
    node.sink.close()
    return took
  }

  private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

  /// This process's CPU time so far (user and system), in milliseconds.
  private func cpuMilliseconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000
      + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
  }
}
