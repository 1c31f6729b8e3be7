// The built `susi` on the network: what waiting costs, and which targets it refuses.

import Foundation
import SusiFiles
import SusiTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The built `susi` waiting on a server that accepts and never answers must use next to no CPU:
/// the one timed wait in the tests (2 s), measured on the whole process.
@Suite(.timeLimit(.minutes(1)))
struct WaitingCPUTests {
  /// The `susi` executable built next to the test bundle.
  static func susiPath() -> String? {
    let me =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    var folder = URL(fileURLWithPath: me).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent("susi").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      folder = folder.deletingLastPathComponent()
    }
    return nil
  }

  /// User plus system CPU of process `pid` so far, in seconds (`/proc/PID/stat`).
  static func cpuSeconds(of pid: pid_t) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    // Fields after the command name: state is field 3, utime 14, stime 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
      return nil
    }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  @Test func susiWaitingTwoSecondsOnASilentServerUsesNextToNoCPU() async throws {
    let susi = try #require(Self.susiPath(), "build the susi executable first")
    let server = try #require(LoopbackServer { _ in .silence })
    defer { server.stop() }
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }

    let arguments = [
      susi, "--server", server.baseURL, "--state-dir", folder + "/state", "--log",
      folder + "/events.jsonl", "ask", "hello",
    ]
    let environment = [
      "PATH=/usr/bin:/bin", "HOME=\(folder)", "LANG=C.UTF-8", "NO_COLOR=1", "TERM=dumb",
    ]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd: Int32 in 0...2 {
      posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    var argv = arguments.map { strdup($0) } + [nil]
    var envp = environment.map { strdup($0) } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    #expect(posix_spawn(&pid, susi, &actions, nil, &argv, &envp) == 0)
    defer {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }

    // Start measuring once the request is on its way: start-up work is not waiting.
    let arrival = ContinuousClock.now + .seconds(20)
    while server.requests.isEmpty && ContinuousClock.now < arrival { await Task.yield() }
    try #require(!server.requests.isEmpty, "susi never sent its request")
    let before = try #require(Self.cpuSeconds(of: pid))
    try await Task.sleep(for: .seconds(2))
    let after = try #require(Self.cpuSeconds(of: pid))
    #expect(after - before < 0.1, "susi used \(after - before) s of CPU while waiting 2 s")
  }
}

/// The built `susi` refuses to preview a page on an internal address in any spelling, naming
/// the URL, unless private targets are allowed.
@Suite(.timeLimit(.minutes(1)))
struct PrivateTargetBinaryTests {
  /// Runs susi with `arguments` (plus an isolated state folder) and returns its exit status and
  /// standard error.
  static func run(_ arguments: [String], allowPrivate: Bool) throws -> (Int32, String, String) {
    let susi = try #require(WaitingCPUTests.susiPath(), "build the susi executable first")
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: susi)
    process.arguments =
      ["--state-dir", folder + "/state", "--log", folder + "/events.jsonl"] + arguments
    var environment = ["PATH": "/usr/bin:/bin", "HOME": folder, "LANG": "C.UTF-8", "NO_COLOR": "1"]
    if allowPrivate { environment["SUSI_ALLOW_PRIVATE_TARGETS"] = "1" }
    process.environment = environment
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try ProcessLaunch.run(process)
    let stdout = output.fileHandleForReading.readToEndOfInput()
    let stderr = errors.fileHandleForReading.readToEndOfInput()
    process.waitUntilExit()
    return (
      process.terminationStatus, String(decoding: stdout, as: UTF8.self),
      String(decoding: stderr, as: UTF8.self)
    )
  }

  @Test func aPreviewOfAnInternalPageIsRefusedUnlessAllowed() throws {
    let page = Array("<html><head><title>Internal admin</title></head></html>".utf8)
    let inside = try #require(
      LoopbackServer { _ in LoopbackServer.reply(200, ["Content-Type: text/html"], body: page) })
    defer { inside.stop() }
    for host in ["127.0.0.1", "2130706433", "[::ffff:127.0.0.1]"] {
      let url = "http://\(host):\(inside.port)/admin"
      let (status, _, stderr) = try Self.run(["preview", url], allowPrivate: false)
      #expect(status != 0)
      #expect(stderr.contains("\(url) points at a loopback address"), "\(stderr)")
    }
    #expect(inside.requests.isEmpty)
    let (status, stdout, _) = try Self.run(
      ["preview", "\(inside.baseURL)/admin"], allowPrivate: true)
    #expect(status == 0)
    #expect(stdout.contains("Internal admin"))
  }
}
