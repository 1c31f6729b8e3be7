// `susi-bench http`: requests per second and latency of the HTTP server for a small JSON POST
// over keep-alive connections, measured with a load generator in this file (epoll, one request
// in flight per connection, per-request latency). When `wrk` is installed its figures for the
// same request are printed too, for comparison.
//
// Options: --seconds=N (per run, default 3), --repeat=N (runs per connection count, default 3;
// the run with the median throughput is shown, as the machine may be shared), --loops=N (server
// event loops), --client-threads=N (load-generator threads, default 1), --hummingbird=PATH (the
// anchor of IntakeAnchor.swift: the same load at 16 and 64 connections goes to it too, and the
// ratio is printed).

import CEpoll
import Foundation
import Glibc
import SusiFiles
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON

let httpBenchmark = Benchmark(
  name: "http",
  summary: "HTTP server: small JSON POST at 1/16/64 keep-alive connections (req/s, p50, p99)"
) { arguments in
  let seconds = HTTPBenchmark.option("--seconds", in: arguments) ?? 3
  let repeats = max(1, HTTPBenchmark.option("--repeat", in: arguments) ?? 3)
  let loops =
    HTTPBenchmark.option("--loops", in: arguments) ?? HTTPServer.Configuration.defaultEventLoopCount
  let clientThreads = HTTPBenchmark.option("--client-threads", in: arguments) ?? 1
  let server = HTTPServer(
    configuration: HTTPServer.Configuration(eventLoopCount: loops),
    handler: HTTPBenchmark.JSONEchoHandler())
  let port = try server.start()
  print(
    "server: \(loops) event loop(s); load generator: \(clientThreads) thread(s); "
      + "median of \(repeats) runs of \(seconds) s"
  )
  let anchor = try IntakeAnchor.start(arguments)
  defer { anchor?.stop() }
  print("connections   requests/s (min…max)      p50 (µs)   p99 (µs)   errors")
  var own: [Int: Double] = [:]
  for connections in [1, 16, 64] {
    let median = HTTPBenchmark.medianRun(
      port: port, connections: connections, clientThreads: clientThreads, seconds: seconds,
      repeats: repeats, label: String(connections))
    own[connections] = median.requestsPerSecond
  }
  if let anchor {
    for connections in [16, 64] {
      HTTPBenchmark.medianRun(
        port: anchor.port, connections: connections, clientThreads: clientThreads,
        seconds: seconds, repeats: repeats, label: "\(connections) anchor",
        ratioTo: own[connections])
    }
  }
  HTTPBenchmark.runWrkIfInstalled(port: port, seconds: seconds)
  await server.shutdown()
}

enum HTTPBenchmark {
  /// A 64-byte JSON body, as a small webhook action would be.
  static let body = #"{"type":"sendMessage","payload":{"query":"hello there, susi!!!"}}"#

  static var request: [UInt8] {
    Array(
      "POST /actions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        .utf8)
  }

  /// Parses the JSON body and answers a small JSON object, like the webhook's `202 {"seq":N}`.
  struct JSONEchoHandler: HTTPHandler {
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
      guard case .object(let object)? = try? JSONParser.parse(request.body),
        let type = object["type"]?.string
      else {
        return HTTPResponse(
          status: 400, contentType: "application/json", body: #"{"error":"bad json"}"#)
      }
      var reply = ObjectBuilder()
      reply.set("accepted", true)
      reply.set("type", type)
      reply.set("seq", 42)
      return HTTPResponse(
        status: 202, headers: ["Content-Type": "application/json"], body: reply.json.compactBytes)
    }
  }

  /// Runs the load `repeats` times and prints the median run's line (with the ratio of `ratioTo`
  /// to its requests/s, when given).
  @discardableResult
  static func medianRun(
    port: Int, connections: Int, clientThreads: Int, seconds: Int, repeats: Int, label: String,
    ratioTo: Double? = nil
  ) -> Result {
    var runs: [Result] = []
    for _ in 0..<repeats {
      runs.append(
        LoadGenerator.run(
          port: port, connections: connections, threads: min(clientThreads, connections),
          seconds: Double(seconds)))
    }
    runs.sort { $0.requestsPerSecond < $1.requestsPerSecond }
    let median = runs[runs.count / 2]
    let spread =
      "\(String(format: "%.0f", runs[0].requestsPerSecond))…\(String(format: "%.0f", runs[runs.count - 1].requestsPerSecond))"
    var line =
      "\(label.padding(toLength: 13, withPad: " ", startingAt: 0)) "
      + "\(pad(String(format: "%.0f", median.requestsPerSecond), 10)) "
      + "\(spread.padding(toLength: 14, withPad: " ", startingAt: 0))"
      + "\(pad(String(format: "%.0f", median.percentile(0.50)), 8))   "
      + "\(pad(String(format: "%.0f", median.percentile(0.99)), 8))   \(median.errors)"
    if let ratioTo, median.requestsPerSecond > 0 {
      line += String(format: "   → ours %.2fx the anchor", ratioTo / median.requestsPerSecond)
    }
    print(line)
    return median
  }

  /// The value of `--name=N` among the arguments.
  static func option(_ name: String, in arguments: [String]) -> Int? {
    arguments.first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
  }

  static func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }

  static func nanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
  }

  struct Result {
    var requests = 0
    var errors = 0
    var reconnects = 0
    var elapsedSeconds = 0.0
    var latencies: [UInt64] = []

    var requestsPerSecond: Double { elapsedSeconds > 0 ? Double(requests) / elapsedSeconds : 0 }

    /// The latency at `fraction` (0.5 = median), in microseconds.
    func percentile(_ fraction: Double) -> Double {
      guard !latencies.isEmpty else { return 0 }
      let sorted = latencies.sorted()
      let index = min(sorted.count - 1, Int(Double(sorted.count) * fraction))
      return Double(sorted[index]) / 1000
    }
  }

  /// Keeps `connections` keep-alive connections busy, one request in flight on each.
  enum LoadGenerator {
    static func run(port: Int, connections: Int, threads: Int, seconds: Double) -> Result {
      let warmup: UInt64 = 300_000_000
      let results = ResultBox()
      var pthreads: [pthread_t] = []
      for thread in 0..<threads {
        let share = connections / threads + (thread < connections % threads ? 1 : 0)
        let work = Worker(
          port: port, connections: share, warmup: warmup,
          measure: UInt64(seconds * 1_000_000_000), results: results)
        var id = pthread_t()
        let box = Unmanaged.passRetained(work)
        pthread_create(
          &id, nil,
          { argument in
            let worker = Unmanaged<Worker>.fromOpaque(argument!).takeRetainedValue()
            susi_name_current_thread("bench-client")
            worker.run()
            return nil
          }, box.toOpaque())
        pthreads.append(id)
      }
      for id in pthreads { pthread_join(id, nil) }
      return results.withLock { (parts: inout [Result]) in
        var total = Result()
        for part in parts {
          total.requests += part.requests
          total.errors += part.errors
          total.reconnects += part.reconnects
          total.elapsedSeconds = max(total.elapsedSeconds, part.elapsedSeconds)
          total.latencies.append(contentsOf: part.latencies)
        }
        return total
      }
    }
  }

  /// The workers' results, gathered under a lock.
  final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [Result] = []
    func withLock<T>(_ body: (inout [Result]) -> T) -> T {
      lock.lock()
      defer { lock.unlock() }
      return body(&parts)
    }
  }

  /// One load-generator thread with its own epoll set.
  final class Worker: @unchecked Sendable {
    let port: Int
    let connections: Int
    let warmup: UInt64
    let measure: UInt64
    let results: ResultBox

    init(port: Int, connections: Int, warmup: UInt64, measure: UInt64, results: ResultBox) {
      self.port = port
      self.connections = connections
      self.warmup = warmup
      self.measure = measure
      self.results = results
    }

    struct Connection {
      var fd: Int32
      var sentAt: UInt64 = 0
      var buffer: [UInt8] = []
    }

    func run() {
      let request = HTTPBenchmark.request
      let epollFD = epoll_create1(0)
      var conns: [Connection] = []
      for index in 0..<connections {
        let fd = connectToLoopback(port: port)
        guard fd >= 0 else { continue }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = UInt64(index)
        epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event)
        conns.append(Connection(fd: fd))
      }
      var result = Result()
      result.latencies.reserveCapacity(1 << 20)
      let start = HTTPBenchmark.nanoseconds()
      let measureFrom = start + warmup
      let stopAt = measureFrom + measure
      for index in conns.indices {
        conns[index].sentAt = HTTPBenchmark.nanoseconds()
        _ = request.withUnsafeBytes {
          send(conns[index].fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        }
      }
      var events = [epoll_event](repeating: epoll_event(), count: 256)
      var scratch = [UInt8](repeating: 0, count: 65536)
      var open = conns.count
      while open > 0 {
        let count = epoll_wait(epollFD, &events, 256, 1000)
        if count <= 0 {
          if HTTPBenchmark.nanoseconds() > stopAt + 2_000_000_000 { break } else { continue }
        }
        for event in events[0..<Int(count)] {
          let index = Int(event.data.u64)
          let fd = conns[index].fd
          let received = recv(fd, &scratch, scratch.count, 0)
          if received <= 0 {
            // The server closed the connection (its per-connection request limit): reconnect.
            close(fd)
            let replacement = connectToLoopback(port: port)
            guard replacement >= 0, HTTPBenchmark.nanoseconds() < stopAt else {
              if replacement >= 0 { close(replacement) }
              if received < 0 { result.errors += 1 }
              open -= 1
              continue
            }
            result.reconnects += 1
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = UInt64(index)
            epoll_ctl(epollFD, EPOLL_CTL_ADD, replacement, &event)
            conns[index] = Connection(fd: replacement, sentAt: HTTPBenchmark.nanoseconds())
            _ = request.withUnsafeBytes {
              send(replacement, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            continue
          }
          conns[index].buffer.append(contentsOf: scratch[0..<received])
          while let length = Self.completeResponseLength(conns[index].buffer) {
            conns[index].buffer.removeFirst(length)
            let now = HTTPBenchmark.nanoseconds()
            if now >= measureFrom && now < stopAt {
              result.requests += 1
              result.latencies.append(now - conns[index].sentAt)
            }
            if now >= stopAt {
              close(fd)
              open -= 1
              break
            } else {
              conns[index].sentAt = now
              _ = request.withUnsafeBytes {
                send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
              }
            }
          }
        }
      }
      result.elapsedSeconds = Double(measure) / 1e9
      close(epollFD)
      results.withLock { $0.append(result) }
    }

    /// The length of the complete response at the start of `buffer`, or nil. Byte-level, so
    /// the load generator spends its time on the wire rather than on string searches.
    static func completeResponseLength(_ buffer: [UInt8]) -> Int? {
      buffer.withUnsafeBufferPointer { bytes -> Int? in
        guard bytes.count >= 4 else { return nil }
        var headEnd = -1
        var index = 3
        while index < bytes.count {
          if bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10
            && bytes[index - 3] == 13
          {
            headEnd = index + 1
            break
          }
          index += 1
        }
        guard headEnd > 0 else { return nil }
        let name = Array("content-length:".utf8)
        var bodyLength = 0
        var line = 0
        while line < headEnd {
          var matches = line + name.count < headEnd
          var offset = 0
          while matches && offset < name.count {
            if bytes[line + offset] | 0x20 != name[offset] | 0x20 { matches = false }
            offset += 1
          }
          if matches {
            var cursor = line + name.count
            while bytes[cursor] == 32 { cursor += 1 }
            while bytes[cursor] >= 48 && bytes[cursor] <= 57 {
              bodyLength = bodyLength * 10 + Int(bytes[cursor] - 48)
              cursor += 1
            }
            break
          }
          while line < headEnd && bytes[line] != 10 { line += 1 }
          line += 1
        }
        return bytes.count >= headEnd + bodyLength ? headEnd + bodyLength : nil
      }
    }
  }

  /// Runs `wrk` with the same request when it is on the PATH.
  static func runWrkIfInstalled(port: Int, seconds: Int) {
    let candidates = ["/usr/bin/wrk", "/usr/local/bin/wrk"]
    guard let wrk = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    else {
      print("(wrk not installed; skipping the comparison run)")
      return
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-bench-wrk-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let script = directory.appendingPathComponent("post.lua")
    let lua = """
      wrk.method = "POST"
      wrk.body = '\(body)'
      wrk.headers["Content-Type"] = "application/json"
      """
    try? lua.write(to: script, atomically: true, encoding: .utf8)
    for connections in [16, 64] {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: wrk)
      process.arguments = [
        "-t", "1", "-c", String(connections), "-d", "\(seconds)s", "--latency", "-s", script.path,
        "http://127.0.0.1:\(port)/actions",
      ]
      let pipe = Pipe()
      process.standardOutput = pipe
      do {
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readToEndOfInput(), as: UTF8.self)
        let wanted = text.split(separator: "\n").filter {
          $0.contains("Requests/sec") || $0.contains(" 50%") || $0.contains(" 99%")
        }
        print(
          "wrk -t1 -c\(connections): "
            + wanted.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " | "))
      } catch {
        print("wrk failed to run: \(error)")
      }
    }
    try? FileManager.default.removeItem(at: directory)
  }
}
