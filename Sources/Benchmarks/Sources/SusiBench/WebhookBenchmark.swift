// `susi-bench webhook`: POST /actions through the whole webhook frontend — HTTP server, key
// check, strict decoding, privilege check, the store appending to the log file (batched fsync),
// the reducer refusing the rating, the runner reporting the refusal, which is appended too — at 16
// and 64 keep-alive connections. Prints requests/s and p50/p99 latency; with `wrk` installed, its
// figures for the same request too.
//
// With the Hummingbird anchor (`--hummingbird=PATH` or `SUSI_BENCH_HUMMINGBIRD`, see
// IntakeAnchor.swift), the same load client and the same wrk runs go to it too, and the ratios
// are printed. Then the real binaries: `susi serve` (the release build, or `SUSI_BINARY`) and
// the anchor, each a process of its own, take turns under `wrk -t1 -c64` for `--rounds=N`
// rounds (default 3), with `--baseline-susi=PATH` (an earlier build of `susi`) taking a turn
// too: requests/s, latency, the server's CPU time per request, and whether every acknowledged
// intent is in the log.
//
// Options: --seconds=N (per run, default 5), --rounds=N, --hummingbird=PATH,
// --baseline-susi=PATH.

import CEpoll
import Foundation
import SusiAccess
import SusiApplication
import SusiCommandLine
import SusiCore
import SusiFiles
import SusiHTTPServer
import SusiServe
import SusiStore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

let webhookBenchmark = Benchmark(
  name: "webhook",
  summary: "webhook frontend: POST /actions with key check and log append at 16/64 connections"
) { arguments in
  try await WebhookBenchmark.run(arguments)
}

enum WebhookBenchmark {
  /// A rating the reducer refuses (stars 9): no network, two events per request.
  static let body =
    #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9}}"#

  static func run(_ arguments: [String]) async throws {
    let seconds =
      arguments.compactMap { $0.hasPrefix("--seconds=") ? Double($0.dropFirst(10)) : nil }.first
      ?? 5
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-bench-webhook-\(getpid())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let log = directory + "/events.jsonl"
    let app = try await SusiApp.start(
      CommonOptions(log: log, stateDirectory: directory + "/state", fsync: "batch"),
      origin: .webhook,
      startEmbedded: false)
    let keys = try KeyFile(path: log + ".keys")
    let token = KeyToken.generate()
    try keys.add(token)
    try await app.store.send(
      .issueKey(.init(by: "local", key: token.keyID, groups: ["admin"])), origin: .cli)
    let service = await WebhookService.start(
      store: app.store, keys: keys)
    let server = HTTPServer(
      configuration: .init(host: "127.0.0.1", port: 0), handler: service.handler)
    let port = try server.start()
    let request = Array(
      ("POST /actions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token.text)\r\n"
        + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        .utf8)
    let before = await app.store.lastSeq
    print(
      "log: \(log) (fsync batch); server: \(HTTPServer.Configuration.defaultEventLoopCount) event loop(s)"
    )
    let anchor = try IntakeAnchor.start(arguments)
    defer { anchor?.stop() }
    print("connections   requests/s   p50 (ms)   p99 (ms)   statuses")
    var own: [Int: WebhookLoadClient.Result] = [:]
    for connections in [16, 64] {
      let result = WebhookLoadClient(port: port, request: request).run(
        connections: connections, seconds: seconds, warmup: 1)
      own[connections] = result
      print(row(String(connections), result))
    }
    if let anchor {
      for connections in [16, 64] {
        let result = WebhookLoadClient(port: anchor.port, request: request).run(
          connections: connections, seconds: seconds, warmup: 1)
        let ratio = (own[connections]?.perSecond ?? 0) / max(result.perSecond, 1)
        print(
          row("\(connections) anchor", result)
            + String(format: "   → susi %.2fx the anchor", ratio))
      }
    }
    if let wrk = Wrk.path {
      let headers = ["Content-Type": "application/json", "Authorization": "Bearer \(token.text)"]
      for connections in [16, 64] {
        let mine = Wrk.run(
          wrk, port: port, connections: connections, seconds: Int(seconds), body: body,
          headers: headers, directory: directory)
        print("wrk -t1 -c\(connections):        " + (mine?.summary ?? "no figures"))
        if let anchor {
          let theirs = Wrk.run(
            wrk, port: anchor.port, connections: connections, seconds: Int(seconds), body: body,
            headers: headers, directory: directory)
          var line = "wrk -t1 -c\(connections) anchor: " + (theirs?.summary ?? "no figures")
          if let mine, let theirs, theirs.requestsPerSecond > 0 {
            line += String(
              format: "   → susi %.2fx the anchor",
              mine.requestsPerSecond / theirs.requestsPerSecond)
          }
          print(line)
        }
      }
    } else {
      print("(wrk not installed; skipping the wrk runs)")
    }
    let appended = await app.store.lastSeq - before
    await server.shutdown()
    await service.shutdown()
    await app.stop()
    print("events appended: \(appended)")
    try realBinaries(arguments, anchor: anchor, seconds: Int(seconds))
  }

  /// One line of the load client's table.
  static func row(_ label: String, _ result: WebhookLoadClient.Result) -> String {
    let statuses = result.statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }
      .joined(separator: " ")
    return "\(label.padding(toLength: 13, withPad: " ", startingAt: 0)) "
      + "\(String(format: "%10.0f", result.perSecond))   \(String(format: "%8.2f", result.percentile(0.5)))   "
      + "\(String(format: "%8.2f", result.percentile(0.99)))   \(statuses)"
  }

  /// `susi serve` as built (and an earlier build, when given) and the anchor, each a process of
  /// its own, taking turns under `wrk -t1 -c64`.
  static func realBinaries(_ arguments: [String], anchor: ServerProcess?, seconds: Int) throws {
    guard let wrk = Wrk.path else { return }
    let rounds =
      arguments.compactMap { $0.hasPrefix("--rounds=") ? Int($0.dropFirst(9)) : nil }.first ?? 3
    var binaries = [("susi serve", builtSusi)]
    if let baseline = arguments.first(where: { $0.hasPrefix("--baseline-susi=") }) {
      binaries.append(("baseline", String(baseline.dropFirst(16))))
    }
    guard binaries.allSatisfy({ FileManager.default.isExecutableFile(atPath: $0.1) }) else {
      print("(no susi binary at \(binaries.map(\.1)); build it first: swift build -c release)")
      return
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-bench-intake-\(getpid())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    struct Contender {
      var name: String
      var server: ServerProcess
      var headers: [String: String]
      var log: String?
      var runs: [WrkFigures] = []
    }
    var contenders: [Contender] = []
    defer { for contender in contenders where contender.log != nil { contender.server.stop() } }
    for (index, (name, path)) in binaries.enumerated() {
      let common = [
        "--log", directory + "/events-\(index).jsonl", "--state-dir", directory + "/state-\(index)",
      ]
      let key = try OverloadBenchmark.output(of: path, common + ["serve", "keys", "init"])
        .trimmingCharacters(in: .whitespacesAndNewlines)
      let server = try ServerProcess(
        name: name, path: path, arguments: common + ["serve", "--port", "0"])
      contenders.append(
        Contender(
          name: name, server: server,
          headers: ["Content-Type": "application/json", "Authorization": "Bearer \(key)"],
          log: directory + "/events-\(index).jsonl"))
    }
    if let anchor {
      contenders.append(
        Contender(
          name: "hummingbird", server: anchor, headers: ["Content-Type": "application/json"],
          log: nil))
    }
    print(
      "real binaries, wrk -t1 -c64, \(seconds) s a run, \(rounds) rounds taking turns "
        + "(load average \(loadAverage()) at the start):")
    for round in 1...max(1, rounds) {
      for index in contenders.indices {
        guard
          let figures = Wrk.run(
            wrk, port: contenders[index].server.port, connections: 64, seconds: seconds,
            body: body, headers: contenders[index].headers, directory: directory,
            server: contenders[index].server)
        else { continue }
        contenders[index].runs.append(figures)
        print(
          "  round \(round) \(contenders[index].name.padding(toLength: 12, withPad: " ", startingAt: 0)) "
            + figures.summary)
      }
    }
    func median(_ values: [Double]) -> Double {
      let sorted = values.sorted()
      return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
    let anchorRuns = contenders.first { $0.log == nil }?.runs ?? []
    let anchorRate = median(anchorRuns.map(\.requestsPerSecond))
    let anchorCPU = median(anchorRuns.compactMap(\.cpuMicroseconds))
    for contender in contenders {
      let rate = median(contender.runs.map(\.requestsPerSecond))
      let cpu = median(contender.runs.compactMap(\.cpuMicroseconds))
      var line =
        "  median \(contender.name.padding(toLength: 12, withPad: " ", startingAt: 0)) "
        + String(format: "%8.0f req/s   %5.1f µs CPU/req", rate, cpu)
      if contender.log != nil && anchorRate > 0 {
        line += String(
          format: "   → %.2fx the anchor's req/s, %.2fx its CPU per request", rate / anchorRate,
          cpu / max(anchorCPU, 0.001))
      }
      print(line)
    }
    if anchor == nil { print("  (no anchor: see above why it is not measured)") }
    for contender in contenders {
      guard let log = contender.log else { continue }
      contender.server.stop()
      let acknowledged = contender.runs.reduce(0) { $0 + $1.requests - $1.non2xx }
      let logged =
        (try? String(contentsOfFile: log, encoding: .utf8))?
        .split(separator: "\n").filter { $0.contains(#""type":"submitRating""#) }.count ?? 0
      print(
        "  \(contender.name): \(acknowledged) acknowledged by wrk, \(logged) intents in the log"
          + (logged >= acknowledged ? " (none lost)" : " (LOST \(acknowledged - logged))"))
    }
    contenders.removeAll()
  }

  /// The 1-minute load average, as /proc/loadavg has it.
  static func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first
      .map(String.init) ?? "?"
  }
}

/// A blocking HTTP/1.1 load generator: each connection is a thread that sends the same request
/// over keep-alive again and again and times every answer.
struct WebhookLoadClient {
  struct Result {
    var requests: Int
    var seconds: Double
    /// Latencies in nanoseconds, sorted.
    var latencies: [UInt64]
    var statuses: [Int: Int]

    var perSecond: Double { Double(requests) / seconds }
    func percentile(_ p: Double) -> Double {
      guard !latencies.isEmpty else { return 0 }
      let index = min(latencies.count - 1, Int(Double(latencies.count) * p))
      return Double(latencies[index]) / 1_000_000
    }
  }

  let port: Int
  let request: [UInt8]

  /// Runs `connections` connections for `seconds` (after `warmup` seconds not counted).
  func run(connections: Int, seconds: Double, warmup: Double) -> Result {
    let results = Mutex<[(latencies: [UInt64], statuses: [Int: Int])]>([])
    let start = monotonicNanoseconds() + UInt64(warmup * 1e9)
    let end = start + UInt64(seconds * 1e9)
    let done = DispatchGroup()
    for _ in 0..<connections {
      done.enter()
      let thread = Thread { [port, request] in
        var connection = Connection(port: port)
        var latencies: [UInt64] = []
        latencies.reserveCapacity(200_000)
        var statuses: [Int: Int] = [:]
        while true {
          let begin = monotonicNanoseconds()
          if begin >= end { break }
          guard let status = connection.exchange(request) else {
            connection = Connection(port: port)
            continue
          }
          let finish = monotonicNanoseconds()
          if begin >= start {
            latencies.append(finish - begin)
            statuses[status, default: 0] += 1
          }
        }
        connection.close()
        results.withLock { $0.append((latencies, statuses)) }
        done.leave()
      }
      thread.stackSize = 1 << 20
      thread.start()
    }
    done.wait()
    var all: [UInt64] = []
    var statuses: [Int: Int] = [:]
    for part in results.withLock({ $0 }) {
      all += part.latencies
      statuses.merge(part.statuses, uniquingKeysWith: +)
    }
    all.sort()
    return Result(requests: all.count, seconds: seconds, latencies: all, statuses: statuses)
  }

  /// One keep-alive connection to 127.0.0.1.
  struct Connection {
    private var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    private var pending: [UInt8] = []

    init(port: Int) { fd = connectToLoopback(port: port) }

    func close() { if fd >= 0 { Glibc.close(fd) } }

    /// Sends the request and reads one response; its status, or nil when the connection broke
    /// or the server closed it.
    mutating func exchange(_ request: [UInt8]) -> Int? {
      guard fd >= 0 else { return nil }
      var sent = 0
      while sent < request.count {
        let n = request.withUnsafeBytes {
          send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
        }
        if n <= 0 { return fail() }
        sent += n
      }
      pending.removeAll(keepingCapacity: true)
      var headerEnd: Int?
      while headerEnd == nil {
        guard read() else { return fail() }
        headerEnd = Self.find([13, 10, 13, 10], in: pending)
      }
      let head = String(decoding: pending[..<headerEnd!], as: UTF8.self)
      let lines = head.split(separator: "\r\n")
      guard let statusLine = lines.first, statusLine.count >= 12,
        let status = Int(statusLine.dropFirst(9).prefix(3))
      else { return fail() }
      var length = 0
      var closes = false
      for line in lines.dropFirst() {
        let lower = line.lowercased()
        if lower.hasPrefix("content-length:") {
          length = Int(lower.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        if lower.hasPrefix("connection:") && lower.contains("close") { closes = true }
      }
      let total = headerEnd! + 4 + length
      while pending.count < total {
        guard read() else { return fail() }
      }
      if closes {
        close()
        fd = -1
      }
      return status
    }

    private mutating func read() -> Bool {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
      guard n > 0 else { return false }
      pending.append(contentsOf: buffer[..<n])
      return true
    }

    private mutating func fail() -> Int? {
      close()
      fd = -1
      return nil
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
      guard haystack.count >= needle.count else { return nil }
      for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
        if Array(haystack[i..<(i + needle.count)]) == needle { return i }
      }
      return nil
    }
  }
}

/// Monotonic nanoseconds.
private func monotonicNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
