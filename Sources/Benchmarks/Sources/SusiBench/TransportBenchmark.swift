// susi-bench transport [--chats=N]: chats through the runner over real sockets against
// `susi server`, next to one sequential Python `http.client` keep-alive connection against the
// same server in the same run, and the CPU a 2 s wait on a silent server costs.

import CEpoll
import Foundation
import SusiCore
import SusiFiles
import SusiHTTPClient
import SusiRunner
import Synchronization

let transportBenchmark = Benchmark(
  name: "transport",
  summary: "chats/s and CPU per chat through the runner vs one Python keep-alive connection",
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
    print("  susi server at \(server.baseURL), \(chats) chats each")

    let python = try pythonChatsPerSecond(server.baseURL)
    print("  python http.client, one keep-alive connection: \(Int(python)) chats/s")
    let runner = await runnerChats(server.baseURL, folder: folder.path, transport: nil)
    print(
      "  runner, SocketTransport (8 at once): \(Int(runner.rate)) chats/s,"
        + " \(String(format: "%.0f", runner.cpuMicroseconds)) µs CPU per chat"
        + " = \(String(format: "%.2f", runner.rate / python))x python")
    let session = await runnerChats(
      server.baseURL, folder: folder.path, transport: URLSessionTransport())
    print(
      "  runner, URLSessionTransport (8 at once): \(Int(session.rate)) chats/s,"
        + " \(String(format: "%.0f", session.cpuMicroseconds)) µs CPU per chat")

    let silent = try SilentServer()
    defer { silent.stop() }
    for (name, transport) in [
      ("SocketTransport", SocketTransport() as any HTTPTransport),
      ("URLSessionTransport", URLSessionTransport(idleTimeout: 2, resourceTimeout: 2)),
    ] {
      let cpu = Self.processCPUSeconds()
      let request = TransportRequest(url: silent.baseURL + "/", idleTimeout: 2, totalTimeout: 2)
      _ = try? await transport.send(request)
      print(
        "  2 s wait on a silent server, \(name): \(String(format: "%.3f", Self.processCPUSeconds() - cpu)) s CPU"
      )
    }
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

  /// User and system CPU of this process, in seconds.
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
private final class SusiServerProcess {
  let process = Process()
  let baseURL: String

  init(stateDirectory: String) throws {
    let susi = URL(fileURLWithPath: builtSusi)
    guard FileManager.default.isExecutableFile(atPath: susi.path) else {
      throw BenchError("\(susi.path) is missing; build it first (swift build -c release)")
    }
    process.executableURL = susi
    process.arguments = ["server", "--port", "0", "--state-dir", stateDirectory]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    var line: [UInt8] = []
    while true {
      let byte = output.fileHandleForReading.readAvailable(limit: 1)
      guard let first = byte.first else { break }
      if first == UInt8(ascii: "\n") { break }
      line.append(first)
    }
    baseURL = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    guard baseURL.hasPrefix("http://") else {
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
