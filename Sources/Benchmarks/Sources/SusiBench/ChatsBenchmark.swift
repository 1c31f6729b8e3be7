// susi-bench chats [--chats=N] [--rounds=N] [--seconds=N]: chats fed through the real `susi jsonl`
// against the real `susi server`, next to that server's own capacity in the same run.
//
// Starts `susi server` (the binary beside susi-bench), measures what it answers under `wrk` with
// 16 keep-alive connections asking the same chat (`GET /susi/chat.json?q=hello`), then feeds N
// `sendMessage` intents (3,000 by default) to `susi jsonl --server URL` as a fresh process, with
// its log on disk (fsync batch). The jsonl figure is N over the wall time from spawn to exit, less
// the wall time of the same command on an empty input (start and shutdown); the best of the
// rounds. The ratio to wrk's figure says how close a program feeding chats gets to the server's
// limit. Without wrk the run says so and prints only the jsonl figure.
//
// Both figures come twice: first with every process free to run on any core, so the client and
// the load generator compete with the server for the machine (on 2 cores the ratio then mostly
// says how the client's CPU per chat compares with wrk's); then, with `taskset` and at least two
// cores, on cores of their own — the server on CPU 0, wrk or `susi jsonl` on CPU 1 — which asks
// the question directly: does the runner keep up with the server, or is it what limits?

import Foundation
import SusiFiles

let chatsBenchmark = Benchmark(
  name: "chats",
  summary: "chats/s through susi jsonl against susi server vs wrk on that server (same run)",
  run: { arguments in try ChatsBenchmark(arguments: arguments).run() })

struct ChatsBenchmark {
  var chats = 3000
  var rounds = 3
  var seconds = 5

  init(arguments: [String]) {
    for argument in arguments {
      if argument.hasPrefix("--chats="), let n = Int(argument.dropFirst(8)) { chats = max(1, n) }
      if argument.hasPrefix("--rounds="), let n = Int(argument.dropFirst(9)) { rounds = max(1, n) }
      if argument.hasPrefix("--seconds="), let n = Int(argument.dropFirst(10)) {
        seconds = max(1, n)
      }
    }
  }

  static let chatPath = "/susi/chat.json?q=hello&timezoneOffset=0&language=en&device_type=Linux"

  func run() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-bench-chats-\(getpid())"
    ).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let server = try SusiServerProcess(stateDirectory: folder + "/server")
    defer { server.stop() }
    print("  susi server at \(server.baseURL); \(chats) chats per jsonl run, best of \(rounds)")

    var text = ""
    for i in 1...chats {
      text += #"{"type":"sendMessage","payload":{"query":"hello"},"id":\#(i)}"# + "\n"
    }
    let input = folder + "/input.jsonl"
    try text.write(toFile: input, atomically: false, encoding: .utf8)
    try measure(server, input: input, folder: folder, on: nil)
    guard let taskset = Self.taskset, ProcessInfo.processInfo.activeProcessorCount >= 2 else {
      print("  (taskset or a second core missing: no run on cores of their own)")
      return
    }
    guard Self.pin(server.process.processIdentifier, to: 0, with: taskset) else {
      print("  (the server could not be pinned to CPU 0: no run on cores of their own)")
      return
    }
    print("  on cores of their own: the server on CPU 0, wrk or susi jsonl on CPU 1")
    try measure(server, input: input, folder: folder, on: (taskset, 1))
  }

  /// The server's capacity under wrk, then the best of the jsonl rounds and their ratio; with
  /// `core`, wrk and `susi jsonl` run on that CPU only.
  func measure(
    _ server: SusiServerProcess, input: String, folder: String,
    on core: (taskset: String, cpu: Int)?
  ) throws {
    let prefix = core.map { [$0.taskset, "-c", "\($0.cpu)"] } ?? []
    let pid = server.process.processIdentifier
    let beforeWrk = processCPUSeconds(pid)
    let capacity = wrkChatsPerSecond(server.baseURL, prefix: prefix)
    if let capacity {
      let serverCPU = (processCPUSeconds(pid) - beforeWrk) / (capacity * Double(seconds)) * 1e6
      print(
        "  wrk -t1 -c16 -d\(seconds)s on the chat: \(Int(capacity)) chats/s (the server's capacity),"
          + " \(String(format: "%.0f", serverCPU)) µs server CPU per chat")
    } else {
      print("  (wrk not installed: the server's capacity is not measured, so no ratio)")
    }
    func jsonl(_ stdin: String, round: Int) -> (MeasuredRun, Int, serverCPU: Double) {
      let state = folder + "/client-\(round)-\(stdin == input ? "full" : "empty")"
      let output = state + ".out"
      let before = processCPUSeconds(pid)
      let run = MeasuredRun.run(
        prefix + [
          builtSusi, "jsonl", "--server", server.baseURL, "--state-dir", state,
          "--log", state + "/events.jsonl", "--drain-timeout", "600",
        ], stdin: stdin, stdout: output)
      let serverCPU = processCPUSeconds(pid) - before
      let lines = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
      let answers = lines.split(separator: "\n").filter { $0.contains("\"messageReceived\"") }
        .count
      try? FileManager.default.removeItem(atPath: state)
      try? FileManager.default.removeItem(atPath: output)
      return (run, answers, serverCPU)
    }
    var best: (rate: Double, run: MeasuredRun, base: Double, serverCPU: Double)?
    for round in 0..<rounds {
      let (empty, _, _) = jsonl("/dev/null", round: round)
      let (full, answered, serverCPU) = jsonl(input, round: round)
      guard full.status == 0, answered == chats else {
        throw BenchFailure(
          "susi jsonl exited with \(full.status) after \(answered) of \(chats) answers")
      }
      let rate = Double(chats) / max(0.001, full.wall - empty.wall)
      print(
        "  round \(round + 1): \(String(format: "%.3f", full.wall)) s wall"
          + " (\(String(format: "%.3f", empty.wall)) s on an empty input),"
          + " \(String(format: "%.3f", full.cpu)) s CPU: \(Int(rate)) chats/s")
      if best == nil || rate > best!.rate { best = (rate, full, empty.wall, serverCPU) }
    }
    guard let best else { return }
    let perChat = best.run.cpu / Double(chats) * 1e6
    // The server's share of one core while the chats ran (start and shutdown left out).
    let serverBusy = best.serverCPU / max(0.001, best.run.wall - best.base) * 100
    var line =
      "  susi jsonl: \(Int(best.rate)) chats/s, \(String(format: "%.0f", perChat)) µs client CPU"
      + " and \(String(format: "%.0f", best.serverCPU / Double(chats) * 1e6)) µs server CPU per chat"
      + " (the server busy \(String(format: "%.0f", serverBusy))% of a core)"
    if let capacity {
      line +=
        " = \(String(format: "%.0f", best.rate / capacity * 100))% of the server's capacity"
        + " (goal: at least 80%)"
    }
    print(line)
  }

  /// Requests/s `wrk` gets from the chat at 16 connections, run after `prefix` (a `taskset`);
  /// nil without wrk.
  func wrkChatsPerSecond(_ base: String, prefix: [String]) -> Double? {
    guard
      let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else { return nil }
    let command = prefix + [wrk, "-t", "1", "-c", "16", "-d", "\(seconds)s", base + Self.chatPath]
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return nil }
    let text = String(decoding: pipe.fileHandleForReading.readToEndOfInput(), as: UTF8.self)
    process.waitUntilExit()
    guard
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
      let value = Double(line.dropFirst("Requests/sec:".count).trimmingCharacters(in: .whitespaces))
    else { return nil }
    if text.contains("Non-2xx") { print("  (wrk saw non-2xx answers)") }
    return value
  }

  /// util-linux's `taskset`, which runs a command on chosen cores or moves a running process.
  static let taskset = ["/usr/bin/taskset", "/bin/taskset"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  /// Moves every thread of process `pid` to CPU `cpu`; false when that failed.
  static func pin(_ pid: Int32, to cpu: Int, with taskset: String) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: taskset)
    process.arguments = ["-a", "-p", "-c", "\(cpu)", "\(pid)"]
    process.standardOutput = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }
}
