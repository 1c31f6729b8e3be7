// susi-bench transport [--chats=N]: chats through the runner over real sockets against
// `susi server`, over http:// and over https:// (`susi server --tls-cert`, a CA made in this
// run), next to one sequential Python `http.client` keep-alive connection (http) and one
// Python `requests.Session` (https, when python3 has requests) against the same servers in the
// same run; TLS handshakes per pooled connection; and the CPU a wait costs: 2 s on a silent
// http server, 4 s on an https server that answers after 4 s.

import CEpoll
import Foundation
import SusiCore
import SusiFiles
import SusiHTTPClient
import SusiHTTPServer
import SusiRunner
import SusiTLSTesting
import Synchronization

let transportBenchmark = Benchmark(
  name: "transport",
  summary:
    "chats/s over http and https through the runner vs Python; handshakes; CPU while waiting",
  run: { arguments in
    var chats = 3000
    for argument in arguments where argument.hasPrefix("--chats=") {
      chats = Int(argument.dropFirst(8)) ?? chats
    }
    try await TransportBenchmark(chats: chats).run()
  })

struct TransportBenchmark {
  let chats: Int

  func run() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-bench-transport-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try SusiServerProcess(stateDirectory: folder.appendingPathComponent("server").path)
    defer { server.stop() }
    let authority = try TestCertificateAuthority(name: "susi-bench CA")
    let caFile = try authority.writeCertificate(to: folder.path)
    let files = try authority.issue(hosts: ["localhost", "127.0.0.1"]).write(to: folder.path)
    let secure = try SusiServerProcess(
      stateDirectory: folder.appendingPathComponent("secure").path,
      tls: (files.certificate, files.key))
    defer { secure.stop() }
    print("  susi server at \(server.baseURL) and \(secure.baseURL), \(chats) chats each")

    let python = try pythonChatsPerSecond(server.baseURL)
    print("  python http.client, one keep-alive connection, http: \(Int(python)) chats/s")
    let runner = await runnerChats(server.baseURL, folder: folder.path, transport: nil)
    print(
      "  runner, SocketTransport (32 at once), http: \(Int(runner.rate)) chats/s,"
        + " \(String(format: "%.0f", runner.cpuMicroseconds)) µs CPU per chat"
        + " = \(String(format: "%.2f", runner.rate / python))x python")

    let tlsTransport = SocketTransport(caFile: caFile)
    let tls = await runnerChats(secure.baseURL, folder: folder.path, transport: tlsTransport)
    let statistics = tlsTransport.statistics
    print(
      "  runner, SocketTransport (32 at once), https: \(Int(tls.rate)) chats/s,"
        + " \(String(format: "%.0f", tls.cpuMicroseconds)) µs CPU per chat"
        + " = \(String(format: "%.0f", tls.rate / runner.rate * 100))% of http")
    print(
      "  https: \(statistics.connectionsOpened) connections opened,"
        + " \(statistics.tlsHandshakes) TLS handshakes"
        + " (\(String(format: "%.2f", Double(statistics.tlsHandshakes) / Double(max(1, statistics.connectionsOpened)))) per pooled connection),"
        + " \(statistics.tlsResumptions) resumed")
    if let requests = try pythonRequestsChatsPerSecond(secure.baseURL, caFile: caFile) {
      print(
        "  python requests.Session, one keep-alive connection, https: \(Int(requests)) chats/s;"
          + " runner = \(String(format: "%.2f", tls.rate / requests))x")
    } else {
      print("  python requests.Session: not measured (python3 has no requests module)")
    }

    let silent = try SilentServer()
    defer { silent.stop() }
    let cpu = Self.processCPUSeconds()
    let request = TransportRequest(url: silent.baseURL + "/", idleTimeout: 2, totalTimeout: 2)
    _ = try? await SocketTransport().send(request)
    print(
      "  2 s wait on a silent http server: \(String(format: "%.3f", Self.processCPUSeconds() - cpu)) s CPU"
    )
    let wait = try await slowHTTPSWait(certificate: files, caFile: caFile)
    print(
      "  4 s wait on an https server that answers after 4 s: \(String(format: "%.3f", wait.cpu)) s CPU"
        + " (answered after \(String(format: "%.2f", wait.elapsed)) s)")
    print(
      "  100 such https requests at once: \(String(format: "%.3f", wait.manyCPU)) s CPU,"
        + " \(wait.threadsBefore) threads before, \(wait.threadsDuring) while they wait"
        + " (all answered: \(wait.allAnswered))")
  }

  /// Sends one request to an in-process HTTPS server whose handler answers after 4 s; the
  /// process's CPU during the exchange (the server sleeps meanwhile).
  func slowHTTPSWait(certificate files: (certificate: String, key: String), caFile: String)
    async throws -> (
      cpu: Double, elapsed: Double, manyCPU: Double, threadsBefore: Int, threadsDuring: Int,
      allAnswered: Bool
    )
  {
    struct Slow: HTTPHandler {
      func handle(_ request: HTTPRequest) async -> HTTPResponse {
        try? await Task.sleep(for: .seconds(4))
        return HTTPResponse(status: 200, contentType: "text/plain", body: "late")
      }
    }
    let tls = try HTTPServerTLS(certificateFile: files.certificate, keyFile: files.key)
    let server = HTTPServer(configuration: .init(tls: tls), handler: Slow())
    let port = try server.start()
    let transport = SocketTransport(caFile: caFile)
    let url = "https://localhost:\(port)/"
    // The handshake is not waiting: it happens before the measured request.
    _ = try? await transport.send(TransportRequest(url: url, idleTimeout: 10, totalTimeout: 10))
    let cpu = Self.processCPUSeconds()
    let start = ContinuousClock.now
    let response = try await transport.send(
      TransportRequest(url: url, idleTimeout: 10, totalTimeout: 10))
    let elapsed = (ContinuousClock.now - start) / .seconds(1)
    let used = Self.processCPUSeconds() - cpu
    guard response.status == 200 else { throw BenchError("the slow https server failed") }
    // Many at once: they share the client's one event loop thread (the server's handlers sleep
    // in tasks, without a thread each either). The handshakes are counted in the CPU.
    let many = SocketTransport(maximumConnectionsPerOrigin: 100, caFile: caFile)
    let threadsBefore = Self.threadCount()
    let manyCPU = Self.processCPUSeconds()
    let requests = (0..<100).map { _ in
      Task { try? await many.send(TransportRequest(url: url, idleTimeout: 10, totalTimeout: 10)) }
    }
    try await Task.sleep(for: .seconds(2))
    let threadsDuring = Self.threadCount()
    var answered = 0
    for request in requests where await request.value?.status == 200 { answered += 1 }
    let manyUsed = Self.processCPUSeconds() - manyCPU
    await server.shutdown()
    return (used, elapsed, manyUsed, threadsBefore, threadsDuring, answered == 100)
  }

  /// Runs `chats` chats through a runner and returns chats/s and client CPU per chat.
  func runnerChats(_ base: String, folder: String, transport: (any HTTPTransport)?) async -> (
    rate: Double, cpuMicroseconds: Double
  ) {
    var configuration = RunnerConfiguration(
      stateDirectory: folder + "/client", embeddedServerURL: base)
    configuration.transport = transport
    configuration.timezoneOffsetMinutes = 0
    configuration.machineLanguage = "en"
    let runner = SusiRunner(configuration: configuration)
    let answered = Mutex(0)
    let effect = Effect.chat(server: "embedded", query: "hello", language: "en")
    // A short warm-up opens the connections.
    for cause in 1...50 { runner.start(effect, cause: cause) { _ in } }
    _ = await runner.waitUntilIdle(timeout: 60)
    let cpu = Self.processCPUSeconds()
    let start = ContinuousClock.now
    for cause in 1...chats {
      runner.start(effect, cause: cause) { action in
        if case .messageReceived = action { answered.withLock { $0 += 1 } }
      }
    }
    _ = await runner.waitUntilIdle(timeout: 600)
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    let used = Self.processCPUSeconds() - cpu
    await runner.shutdown()
    let done = answered.withLock { $0 }
    if done != chats { print("  (only \(done) of \(chats) chats were answered)") }
    return (Double(done) / seconds, used / Double(max(1, done)) * 1e6)
  }

  /// Chats/s of one sequential keep-alive `http.client` connection.
  func pythonChatsPerSecond(_ base: String) throws -> Double {
    let script = """
      import http.client, sys, time, urllib.parse
      u = urllib.parse.urlsplit(sys.argv[1]); n = int(sys.argv[2])
      c = http.client.HTTPConnection(u.hostname, u.port)
      path = "/susi/chat.json?q=hello&timezoneOffset=0&language=en&device_type=Linux"
      for _ in range(50):
          c.request("GET", path); c.getresponse().read()
      t = time.perf_counter()
      for _ in range(n):
          c.request("GET", path); r = c.getresponse(); r.read()
          assert r.status == 200
      print(n / (time.perf_counter() - t))
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, base, String(chats)]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readToEndOfInput()
    process.waitUntilExit()
    guard process.terminationStatus == 0,
      let rate = Double(
        String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw BenchError("python3 http.client run failed") }
    return rate
  }

  /// Chats/s of one Python `requests.Session` over TLS, trusting `caFile`; nil without requests.
  func pythonRequestsChatsPerSecond(_ base: String, caFile: String) throws -> Double? {
    let script = """
      import sys, time
      try:
          import requests
      except ImportError:
          print("none"); sys.exit(0)
      base, n, ca = sys.argv[1], int(sys.argv[2]), sys.argv[3]
      s = requests.Session(); s.trust_env = False; s.verify = ca
      url = base + "/susi/chat.json?q=hello&timezoneOffset=0&language=en&device_type=Linux"
      for _ in range(50):
          s.get(url).content
      t = time.perf_counter()
      for _ in range(n):
          r = s.get(url); r.content
          assert r.status_code == 200
      print(n / (time.perf_counter() - t))
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, base, String(chats), caFile]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readToEndOfInput()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    if text == "none" { return nil }
    guard process.terminationStatus == 0, let rate = Double(text) else {
      throw BenchError("python3 requests run failed")
    }
    return rate
  }

  /// User and system CPU of this process, in seconds.
  /// The threads of this process.
  static func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
  }

  static func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
      + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
  }
}

private struct BenchError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// `susi server` (the binary next to this one) in a child process.
final class SusiServerProcess {
  let process = Process()
  let baseURL: String

  init(stateDirectory: String, tls: (certificate: String, key: String)? = nil) throws {
    let susi = URL(fileURLWithPath: builtSusi)
    guard FileManager.default.isExecutableFile(atPath: susi.path) else {
      throw BenchError("\(susi.path) is missing; build it first (swift build -c release)")
    }
    process.executableURL = susi
    process.arguments = ["server", "--port", "0", "--state-dir", stateDirectory]
    if let tls { process.arguments! += ["--tls-cert", tls.certificate, "--tls-key", tls.key] }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    // The operators' log lines (JSON) come before the URL line.
    var url = ""
    while true {
      var line: [UInt8] = []
      var ended = false
      while true {
        let byte = output.fileHandleForReading.readAvailable(limit: 1)
        guard let first = byte.first else {
          ended = true
          break
        }
        if first == UInt8(ascii: "\n") { break }
        line.append(first)
      }
      url = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
      if ended || !url.hasPrefix("{") { break }
    }
    baseURL = url
    guard baseURL.hasPrefix("http://") || baseURL.hasPrefix("https://") else {
      process.terminate()
      throw BenchError("susi server did not print its URL (got '\(baseURL)')")
    }
  }

  func stop() {
    process.terminate()
    process.waitUntilExit()
  }
}

/// Accepts connections on 127.0.0.1 and never answers.
private final class SilentServer {
  let fd: Int32
  let baseURL: String

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    self.fd = fd
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard bound == 0, listen(fd, 16) == 0 else { throw BenchError("cannot listen") }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    baseURL = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
  }

  func stop() { close(fd) }
}
