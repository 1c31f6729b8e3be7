// The peer anchor of the intake rows (`http`, `webhook`): a Hummingbird 2 server whose one route,
// `POST /actions`, decodes the JSON body into a typed intent and answers `202 {"seq":N}`,
// checking and storing nothing. It is built from public sources outside this repository; the
// benchmarks run it when they are told where its binary is, with `--hummingbird=PATH` or the
// environment variable `SUSI_BENCH_HUMMINGBIRD`. The binary takes a port as its argument (0 for
// any), listens on 127.0.0.1 and prints `http://127.0.0.1:PORT` once it does.
//
// Also here: a server run as a process of its own under `wrk`, with the CPU time it spent (user
// and system, from /proc), so two servers can be compared by what a request costs them, which
// moves less with other work on the machine than requests per second.

import Foundation
import SusiFiles

#if canImport(Glibc)
  import Glibc
#endif

enum IntakeAnchor {
  static let optionName = "--hummingbird"
  static let environmentName = "SUSI_BENCH_HUMMINGBIRD"

  /// The anchor's binary, or why there is none (for the line that says it was not measured).
  static func locate(_ arguments: [String]) -> Result<String, Missing> {
    let given =
      arguments.first { $0.hasPrefix(optionName + "=") }.map {
        String($0.dropFirst(optionName.count + 1))
      }
      ?? ProcessInfo.processInfo.environment[environmentName]
    guard let path = given, !path.isEmpty else {
      return .failure(
        Missing(
          reason:
            "the Hummingbird anchor is not measured: no binary given (\(optionName)=PATH or "
            + "\(environmentName)); it is built from public sources outside this repository"))
    }
    guard FileManager.default.isExecutableFile(atPath: path) else {
      return .failure(
        Missing(reason: "the Hummingbird anchor is not measured: \(path) is not an executable"))
    }
    return .success(path)
  }

  /// The anchor started on any free port; nil (after printing why) when there is no binary.
  static func start(_ arguments: [String]) throws -> ServerProcess? {
    switch locate(arguments) {
    case .success(let path):
      return try ServerProcess(name: "hummingbird", path: path, arguments: ["0"])
    case .failure(let missing):
      print(missing.reason)
      return nil
    }
  }

  struct Missing: Error {
    var reason: String
  }
}

/// A server started as a process of its own that printed its address on its first line.
final class ServerProcess {
  let name: String
  let process: Process
  let port: Int

  /// Starts `path` with `arguments` and waits for the `http://HOST:PORT` line.
  init(name: String, path: String, arguments: [String]) throws {
    self.name = name
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    guard let line = OverloadBenchmark.readLine(pipe.fileHandleForReading),
      let port = URL(string: line.trimmingCharacters(in: .whitespaces))?.port
    else {
      process.terminate()
      process.waitUntilExit()
      throw StartFailure(message: "\(name) (\(path)) did not print its address")
    }
    self.process = process
    self.port = port
  }

  struct StartFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }

  /// User plus system CPU seconds the process has used so far, every thread included.
  var cpuSeconds: Double { processCPUSeconds(process.processIdentifier) }

  func stop() {
    process.terminate()
    process.waitUntilExit()
  }
}

/// What one `wrk` run reported.
struct WrkFigures {
  var requestsPerSecond: Double
  /// Completed requests, and those answered with a status outside 2xx/3xx.
  var requests: Int
  var non2xx: Int
  var p50: String
  var p99: String
  /// The server's CPU time per completed request, in microseconds (when it was measured).
  var cpuMicroseconds: Double?

  var summary: String {
    var text =
      String(format: "%8.0f req/s", requestsPerSecond) + "   p50 " + HTTPBenchmark.pad(p50, 8)
      + "   p99 " + HTTPBenchmark.pad(p99, 8)
    if let cpuMicroseconds { text += String(format: "   %5.1f µs CPU/req", cpuMicroseconds) }
    if non2xx > 0 { text += "   non-2xx \(non2xx)" }
    return text
  }
}

enum Wrk {
  static var path: String? {
    ["/usr/bin/wrk", "/usr/local/bin/wrk"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }

  /// Runs `wrk -t1 -cN --latency` posting `body` to /actions with `headers`, while `server` (when
  /// given) is watched for the CPU time it spends.
  static func run(
    _ wrk: String, port: Int, connections: Int, seconds: Int, body: String,
    headers: [String: String], directory: String, server: ServerProcess? = nil
  ) -> WrkFigures? {
    let script = directory + "/post-\(connections).lua"
    var lua = "wrk.method = \"POST\"\nwrk.body = '\(body)'\n"
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
      lua += "wrk.headers[\"\(name)\"] = \"\(value)\"\n"
    }
    try? lua.write(toFile: script, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: wrk)
    process.arguments = [
      "-t", "1", "-c", String(connections), "-d", "\(seconds)s", "--latency", "-s", script,
      "http://127.0.0.1:\(port)/actions",
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    let cpuBefore = server?.cpuSeconds
    do {
      try process.run()
    } catch {
      print("wrk failed to run: \(error)")
      return nil
    }
    let text = String(decoding: pipe.fileHandleForReading.readToEndOfInput(), as: UTF8.self)
    process.waitUntilExit()
    let cpuAfter = server?.cpuSeconds
    return parse(text, cpu: cpuBefore.flatMap { before in cpuAfter.map { $0 - before } })
  }

  /// The figures in wrk's report.
  static func parse(_ text: String, cpu: Double?) -> WrkFigures? {
    var figures = WrkFigures(requestsPerSecond: 0, requests: 0, non2xx: 0, p50: "?", p99: "?")
    for line in text.split(separator: "\n") {
      let words = line.split(separator: " ")
      if line.contains("Requests/sec:"), let value = words.last.flatMap({ Double($0) }) {
        figures.requestsPerSecond = value
      } else if line.contains(" requests in "), let first = words.first.flatMap({ Int($0) }) {
        figures.requests = first
      } else if line.contains("Non-2xx"), let last = words.last.flatMap({ Int($0) }) {
        figures.non2xx = last
      } else if words.first == "50%", words.count > 1 {
        figures.p50 = String(words[1])
      } else if words.first == "99%", words.count > 1 {
        figures.p99 = String(words[1])
      }
    }
    guard figures.requests > 0 else { return nil }
    if let cpu { figures.cpuMicroseconds = cpu / Double(figures.requests) * 1e6 }
    return figures
  }
}

/// User plus system CPU seconds process `pid` has used so far, every thread included (0 when
/// /proc cannot tell).
func processCPUSeconds(_ pid: Int32) -> Double {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = text.lastIndex(of: ")")
  else { return 0 }
  // After "pid (comm)": state is field 3, utime 14 and stime 15.
  let fields = text[text.index(after: close)...].split(separator: " ")
  guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12])
  else { return 0 }
  return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
