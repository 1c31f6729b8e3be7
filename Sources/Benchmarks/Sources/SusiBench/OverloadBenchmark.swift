// `susi-bench overload`: the real `susi serve` binary (with its built-in SUSI server) under more
// chat requests than its runner can perform, for 60 s: 32 keep-alive connections post
// `sendMessage` as fast as they are answered, while a probe asks `/healthz` four times a second
// on a fresh connection. Prints the answers by status, the probe's successes and worst latency,
// the server's peak RSS, how long it took to drain afterwards, and whether every acknowledged
// intent is in the log.
//
// Options: --overload-seconds=N (default 60), --overload-connections=N (default 32).

import CEpoll
import Foundation
import SusiFiles
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

let overloadBenchmark = Benchmark(
  name: "overload",
  summary: "susi serve under 60 s of more chats than it can answer: RSS, 429s, health, nothing lost"
) { arguments in
  try await OverloadBenchmark.run(arguments)
}

enum OverloadBenchmark {
  static func run(_ arguments: [String]) async throws {
    func option(_ name: String, _ fallback: Double) -> Double {
      arguments.compactMap {
        $0.hasPrefix("--\(name)=") ? Double($0.dropFirst(name.count + 3)) : nil
      }
      .first ?? fallback
    }
    let seconds = option("overload-seconds", 60)
    let connections = Int(option("overload-connections", 32))
    let susi = builtSusi
    guard FileManager.default.isExecutableFile(atPath: susi) else {
      print("(no susi binary at \(susi); build it first: swift build -c release)")
      return
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-bench-overload-\(getpid())"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let common = ["--log", directory + "/events.jsonl", "--state-dir", directory + "/state"]

    let key = try output(of: susi, common + ["serve", "keys", "init"])
      .trimmingCharacters(in: .whitespacesAndNewlines)
    guard
      let serve = try? ServerProcess(
        name: "susi serve", path: susi, arguments: common + ["serve", "--port", "0"])
    else {
      print("susi serve did not print its address")
      return
    }
    let port = serve.port
    let pid = serve.process.processIdentifier
    let startRSS = memory(of: pid).rss

    let body = #"{"type":"sendMessage","payload":{"query":"what is the capital of France"}}"#
    let request = Array(
      ("POST /actions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\n"
        + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        .utf8)
    let load = Mutex<WebhookLoadClient.Result?>(nil)
    let finished = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      let result = WebhookLoadClient(port: port, request: request).run(
        connections: connections, seconds: seconds, warmup: 0)
      load.withLock { $0 = result }
      finished.signal()
    }
    var probes = 0
    var healthy = 0
    var worstProbe = 0.0
    var peakRSS = startRSS
    var samples: [String] = []
    let loadStart = Date()
    while finished.wait(timeout: .now() + .milliseconds(250)) == .timedOut {
      probes += 1
      let (ok, milliseconds) = probeHealth(port: port)
      if ok { healthy += 1 }
      worstProbe = max(worstProbe, milliseconds)
      let rss = memory(of: pid).rss
      peakRSS = max(peakRSS, rss)
      let elapsed = Int(Date().timeIntervalSince(loadStart))
      if elapsed >= samples.count * 10 { samples.append("\(elapsed) s: \(rss >> 20) MB") }
    }
    let result = load.withLock { $0 }!
    let acknowledged = result.statuses[202, default: 0]

    // Let the runner finish what was accepted, then stop the server cleanly.
    let drainStart = Date()
    var last = -1
    var stableSince = Date()
    while Date().timeIntervalSince(drainStart) < 600 {
      peakRSS = max(peakRSS, memory(of: pid).rss)
      let seq = lastSeq(port: port) ?? last
      if seq != last {
        last = seq
        stableSince = Date()
      } else if Date().timeIntervalSince(stableSince) > 2 {
        break
      }
      usleep(200_000)
    }
    let drained = Date().timeIntervalSince(drainStart) - 2
    let peakAll = memory(of: pid).peak
    serve.stop()
    let logged = try String(contentsOfFile: directory + "/events.jsonl", encoding: .utf8)
      .split(separator: "\n").filter { $0.contains(#""type":"sendMessage""#) }.count

    let statuses = result.statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }
      .joined(separator: " ")
    print("\(Int(seconds)) s, \(connections) connections posting sendMessage to susi serve")
    print("answers: \(statuses) (\(String(format: "%.0f", result.perSecond))/s)")
    print(
      "healthz: \(healthy)/\(probes) answered, worst \(String(format: "%.1f", worstProbe)) ms")
    print(
      "server RSS: \(startRSS >> 20) MB at start, peak \(peakRSS >> 20) MB while loaded "
        + "(VmHWM \(peakAll >> 20) MB)")
    print("server RSS every 10 s: " + samples.joined(separator: ", "))
    print("drained in \(String(format: "%.1f", max(0, drained))) s after the load stopped")
    print(
      "acknowledged intents: \(acknowledged); sendMessage intents in the log: \(logged)"
        + (logged == acknowledged ? " (none lost)" : " (MISMATCH)"))
  }

  /// The whole standard output of a command.
  static func output(of path: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readToEndOfInput()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  /// One line from `handle`, without its newline.
  static func readLine(_ handle: FileHandle) -> String? {
    var bytes: [UInt8] = []
    while true {
      let chunk = handle.readAvailable(limit: 1)
      guard let byte = chunk.first else { return nil }
      if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
  }

  /// Current and peak resident memory of a process, in bytes.
  static func memory(of pid: Int32) -> (rss: Int, peak: Int) {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
      return (0, 0)
    }
    func kilobytes(_ field: String) -> Int {
      guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else {
        return 0
      }
      return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return (kilobytes("VmRSS:"), kilobytes("VmHWM:"))
  }

  /// GET /healthz on a new connection, with a 2 s limit: whether it answered 200, and how long
  /// it took in milliseconds.
  static func probeHealth(port: Int) -> (Bool, Double) {
    let begin = Date()
    let response = exchange(
      port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    let milliseconds = Date().timeIntervalSince(begin) * 1000
    return (response?.hasPrefix("HTTP/1.1 200") == true, milliseconds)
  }

  /// The `lastSeq` that /healthz reports.
  static func lastSeq(port: Int) -> Int? {
    guard
      let response = exchange(
        port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
      let range = response.range(of: #""lastSeq":"#)
    else { return nil }
    return Int(response[range.upperBound...].prefix { $0.isNumber })
  }

  /// Sends `request` on a new connection and reads until the server closes it (2 s limit).
  static func exchange(port: Int, _ request: String) -> String? {
    let fd = connectToLoopback(port: port)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var limit = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    let bytes = Array(request.utf8)
    guard send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return nil }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n <= 0 { break }
      received += buffer[..<n]
    }
    return received.isEmpty ? nil : String(decoding: received, as: UTF8.self)
  }
}
