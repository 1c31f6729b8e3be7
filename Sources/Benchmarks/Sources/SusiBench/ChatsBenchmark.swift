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

    let capacity = wrkChatsPerSecond(server.baseURL)
    if let capacity {
      print(
        "  wrk -t1 -c16 -d\(seconds)s on the chat: \(Int(capacity)) chats/s (the server's capacity)"
      )
    } else {
      print("  (wrk not installed: the server's capacity is not measured, so no ratio)")
    }

    var text = ""
    for i in 1...chats {
      text += #"{"type":"sendMessage","payload":{"query":"hello"},"id":\#(i)}"# + "\n"
    }
    let input = folder + "/input.jsonl"
    try text.write(toFile: input, atomically: false, encoding: .utf8)
    func jsonl(_ stdin: String, round: Int) -> (MeasuredRun, Int) {
      let state = folder + "/client-\(round)-\(stdin == input ? "full" : "empty")"
      let output = state + ".out"
      let run = MeasuredRun.run(
        [
          builtSusi, "jsonl", "--server", server.baseURL, "--state-dir", state,
          "--log", state + "/events.jsonl", "--drain-timeout", "600",
        ], stdin: stdin, stdout: output)
      let lines = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
      let answers = lines.split(separator: "\n").filter { $0.contains("\"messageReceived\"") }
        .count
      try? FileManager.default.removeItem(atPath: state)
      try? FileManager.default.removeItem(atPath: output)
      return (run, answers)
    }
    var best: (rate: Double, run: MeasuredRun, base: Double)?
    for round in 0..<rounds {
      let (empty, _) = jsonl("/dev/null", round: round)
      let (full, answered) = jsonl(input, round: round)
      guard full.status == 0, answered == chats else {
        throw BenchFailure(
          "susi jsonl exited with \(full.status) after \(answered) of \(chats) answers")
      }
      let rate = Double(chats) / max(0.001, full.wall - empty.wall)
      print(
        "  round \(round + 1): \(String(format: "%.3f", full.wall)) s wall"
          + " (\(String(format: "%.3f", empty.wall)) s on an empty input),"
          + " \(String(format: "%.3f", full.cpu)) s CPU: \(Int(rate)) chats/s")
      if best == nil || rate > best!.rate { best = (rate, full, empty.wall) }
    }
    guard let best else { return }
    let perChat = best.run.cpu / Double(chats) * 1e6
    var line =
      "  susi jsonl: \(Int(best.rate)) chats/s, \(String(format: "%.0f", perChat)) µs client CPU per chat"
    if let capacity {
      line +=
        " = \(String(format: "%.0f", best.rate / capacity * 100))% of the server's capacity"
        + " (goal: at least 80%)"
    }
    print(line)
  }

  /// Requests/s `wrk` gets from the chat at 16 connections; nil without wrk.
  func wrkChatsPerSecond(_ base: String) -> Double? {
    guard
      let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      })
    else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: wrk)
    process.arguments = ["-t", "1", "-c", "16", "-d", "\(seconds)s", base + Self.chatPath]
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
}
