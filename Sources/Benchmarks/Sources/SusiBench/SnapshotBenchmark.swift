// susi-bench snapshot [--snapshot-events=N] [--snapshot-loop=N]: what a snapshot costs a start.
//
// Folds N realistic events (1,000,000 by default) in memory, then measures, best of 20: writing
// the snapshot's bytes (with the state digest its header records; then with the check a writer
// makes, `Snapshot.checkedEncoding`), reading them back as a start does (`Snapshot(decoding:)`,
// every check included), and the state digest (what a start recomputed to check a snapshot
// before format 2). With `--snapshot-loop=N` it then reads the
// snapshot N more times and prints nothing else, for a profiler (`perf record`).

import Foundation
import SusiCore
import SusiEventLog
import SusiSamples
import SusiStore

let snapshotBenchmark = Benchmark(
  name: "snapshot",
  summary: "a 1M-event state's snapshot: written, read back as a start does, and its checks",
  run: { arguments in try SnapshotBenchmark(arguments: arguments).run() })

struct SnapshotBenchmark {
  let events: Int
  let loop: Int

  init(arguments: [String]) {
    events = option("--snapshot-events", in: arguments).flatMap { Int($0) } ?? 1_000_000
    loop = option("--snapshot-loop", in: arguments).flatMap { Int($0) } ?? 0
  }

  func run() throws {
    let clock = ContinuousClock()
    var recovered = Recovered()
    let folded = clock.measure {
      for seq in 1...max(events, 1) { _ = recovered.apply(RealisticEvents.event(seq: seq)) }
    }
    let record = EventLogWriter.line(for: RealisticEvents.event(seq: max(events, 1)).encoded())
    let checkpoint = EventLogCheckpoint(
      seq: recovered.lastSeq, lineNumber: recovered.lastSeq, offset: 0, line: record)
    let snapshot = Snapshot(checkpoint: checkpoint, recovered: recovered)
    let bytes = snapshot.encoded()
    print(
      String(
        format: "  %d realistic events folded in %.1f s; their snapshot: %d bytes", events,
        folded.inSeconds, bytes.count))
    if loop > 0 {
      for _ in 0..<loop { _ = try Snapshot(decoding: bytes) }
      return
    }
    let written = best { _ = snapshot.encoded() }
    let checked = try bestThrowing { _ = try snapshot.checkedEncoding() }
    let read = try bestThrowing { _ = try Snapshot(decoding: bytes) }
    let stateDigest = best { _ = Snapshot.digest(recovered.state) }
    print(String(format: "  written (body, header, state digest)   %8.2f ms", written))
    print(String(format: "  the same, checked as a writer does      %8.2f ms", checked))
    print(String(format: "  read back as a start reads it           %8.2f ms", read))
    print(String(format: "    the state digest (canonical + SHA)    %8.2f ms", stateDigest))
  }

  private func best(_ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<20 {
      let began = ContinuousClock.now
      body()
      best = min(best, (ContinuousClock.now - began).inSeconds * 1000)
    }
    return best
  }

  private func bestThrowing(_ body: () throws -> Void) throws -> Double {
    var best = Double.infinity
    for _ in 0..<20 {
      let began = ContinuousClock.now
      try body()
      best = min(best, (ContinuousClock.now - began).inSeconds * 1000)
    }
    return best
  }
}

extension Duration {
  fileprivate var inSeconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
