// susi-bench reallog [--chats=N] [--rounds=N] [--log=PATH]: figures on a log recorded through the
// real binary, the way a person's log grows.
//
// Records a log by feeding `susi jsonl` (the `susi` built beside susi-bench) against its
// built-in server: N `sendMessage` intents with a `loadSkills` every 50 and a `loadGroups` every
// 100 (about 2.06 events per chat), and a second log with half the chats for the growth figure.
// On it, each a fresh process measured by `wait4` (wall, CPU, peak RSS), best of the rounds:
// `susi replay LOG --json`, the same from the snapshot, Python `json.loads` and `orjson.loads`
// over the same lines, and `susi ask hello` on a copy of that log vs on a fresh log.
// --chats=500000 records a log of more than 1M events (minutes); --log=PATH measures a log
// recorded before (its half-size twin, if any, at PATH.half).

import Foundation

let realLogBenchmark = Benchmark(
  name: "reallog",
  summary: "a log recorded through susi jsonl: replay vs Python, growth, start time and memory",
  run: { arguments in try RealLogBenchmark(arguments: arguments).run() })

struct RealLogBenchmark {
  var chats = 10_000
  var rounds = 3
  var log: String?

  init(arguments: [String]) {
    for argument in arguments {
      if argument.hasPrefix("--chats="), let n = Int(argument.dropFirst(8)) { chats = n }
      if argument.hasPrefix("--rounds="), let n = Int(argument.dropFirst(9)) { rounds = max(1, n) }
      if argument.hasPrefix("--log=") { log = String(argument.dropFirst(6)) }
    }
  }

  static var susi: String { builtSusi }

  /// Line `i` of the recording's input.
  static func input(chats: Int) -> String {
    var text = ""
    text.reserveCapacity(chats * 70)
    for i in 1...chats {
      text += #"{"type":"sendMessage","payload":{"query":"hello \#(i)"},"id":\#(i)}"# + "\n"
      if i % 50 == 0 { text += #"{"type":"loadSkills","payload":{}}"# + "\n" }
      if i % 100 == 0 { text += #"{"type":"loadGroups","payload":{}}"# + "\n" }
    }
    return text
  }

  /// Records a log of `chats` chats in a new folder under `parent`; returns the log's path.
  static func record(chats: Int, in folder: String) throws -> String {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let inputPath = folder + "/input.jsonl"
    try input(chats: chats).write(toFile: inputPath, atomically: false, encoding: .utf8)
    let log = folder + "/events.jsonl"
    let run = MeasuredRun.run(
      [
        susi, "jsonl", "--state-dir", folder + "/state", "--log", log, "--fsync", "never",
        "--drain-timeout", "600",
      ], stdin: inputPath)
    try? FileManager.default.removeItem(atPath: inputPath)
    guard run.status == 0 else { throw BenchFailure("recording failed (status \(run.status))") }
    return log
  }

  func run() throws {
    let parent = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-bench-reallog-\(getpid())"
    ).path
    defer { try? FileManager.default.removeItem(atPath: parent) }
    let large: String
    var half: String?
    if let log {
      large = log
      half = FileManager.default.fileExists(atPath: log + ".half") ? log + ".half" : nil
    } else {
      print("recording \(chats) and \(chats / 2) chats through susi jsonl…")
      large = try Self.record(chats: chats, in: parent + "/large")
      half = try Self.record(chats: chats / 2, in: parent + "/half") as String?
    }
    let events = try countLines(large)
    let bytes = (try FileManager.default.attributesOfItem(atPath: large)[.size] as? Int) ?? 0
    print("log: \(events) events, \(bytes / 1_000_000) MB")

    let replay = best { MeasuredRun.run([Self.susi, "replay", large, "--json", "--no-snapshot"]) }
    print("  susi replay LOG --json (whole log)          \(replay.summary)")
    let fromSnapshot = best {
      MeasuredRun.run([Self.susi, "replay", large, "--json", "--from-snapshot"])
    }
    print("  susi replay LOG --json --from-snapshot      \(fromSnapshot.summary)")
    for (name, module) in [("json.loads", "json"), ("orjson.loads", "orjson")] {
      let script =
        "import sys, \(module)\nwith open(sys.argv[1], 'rb') as f:\n    for line in f: \(module).loads(line)\n"
      let python = best { MeasuredRun.run(["/usr/bin/env", "python3", "-c", script, large]) }
      guard python.status == 0 else {
        print("  Python \(name): not available (status \(python.status))")
        continue
      }
      print(
        "  Python \(name.padding(toLength: 37, withPad: " ", startingAt: 0))\(python.summary)"
          + String(
            format: "  → susi's speed / Python's: %.2f by wall time, %.2f by CPU time",
            python.wall / replay.wall, python.cpu / replay.cpu))
    }
    if let half {
      let halfRun = best {
        MeasuredRun.run([Self.susi, "replay", half, "--json", "--no-snapshot"])
      }
      let halfEvents = try countLines(half)
      print(
        "  growth: \(halfEvents) → \(events) events: "
          + String(
            format: "%.2fx the time (wall), %.2fx (CPU)", replay.wall / halfRun.wall,
            replay.cpu / halfRun.cpu))
    }
    try askFigures(log: large, parent: parent)
  }

  /// `susi ask hello` on a copy of the log (with its snapshots) vs on a fresh log.
  private func askFigures(log: String, parent: String) throws {
    let copy = parent + "/ask"
    try? FileManager.default.removeItem(atPath: copy)
    try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
    let folder = (log as NSString).deletingLastPathComponent
    let name = (log as NSString).lastPathComponent
    for file in try FileManager.default.contentsOfDirectory(atPath: folder)
    where file == name || file.hasPrefix(name + ".snapshot.") {
      try FileManager.default.copyItem(
        atPath: folder + "/" + file, toPath: copy + "/" + (file == name ? "events.jsonl" : file))
    }
    func ask(_ log: String, _ state: String) -> MeasuredRun {
      MeasuredRun.run([
        Self.susi, "ask", "hello", "--log", log, "--state-dir", state, "--fsync", "never",
      ])
    }
    let fresh = best {
      let dir = parent + "/fresh-\(UUID().uuidString)"
      return ask(dir + "/events.jsonl", dir + "/state")
    }
    let onLog = best { ask(copy + "/events.jsonl", copy + "/state") }
    print("  susi ask hello, fresh log                   \(fresh.summary)")
    print(
      "  susi ask hello, on this log                 \(onLog.summary)"
        + String(
          format: "  → %.2fx the wall time, %.2fx the CPU time, %.2fx the peak RSS",
          onLog.wall / fresh.wall, onLog.cpu / fresh.cpu,
          Double(onLog.peakKilobytes) / Double(max(fresh.peakKilobytes, 1))))
  }

  private func best(_ body: () -> MeasuredRun) -> MeasuredRun {
    MeasuredRun.best(of: rounds, body)
  }

  private func countLines(_ path: String) throws -> Int {
    guard let handle = FileHandle(forReadingAtPath: path) else { throw BenchFailure("no \(path)") }
    defer { try? handle.close() }
    var count = 0
    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
      count += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }
    return count
  }
}

struct BenchFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
