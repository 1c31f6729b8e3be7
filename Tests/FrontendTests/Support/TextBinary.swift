import Foundation
import SusiFiles
import SusiTesting
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the built `susi` executable, the way a person or a script would.
struct TextBinary {
  /// What one run printed and how it ended.
  struct Run {
    var stdout: String
    var stderr: String
    var status: Int32
  }

  let path: String

  /// The `susi` built next to the test bundle, or nil when it is not there.
  static func find() -> TextBinary? {
    let me =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    var folder = URL(fileURLWithPath: me).deletingLastPathComponent()
    // On some platforms the test bundle is a directory holding the executable.
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent("susi").path
      if FileManager.default.isExecutableFile(atPath: candidate) {
        return TextBinary(path: candidate)
      }
      folder = folder.deletingLastPathComponent()
    }
    return nil
  }

  /// The environment of every run: nothing from the person running the tests, a UTF-8 locale,
  /// `HOME` and `XDG_STATE_HOME` inside `folder`, times in UTC whatever the machine's zone.
  static func environment(_ folder: String, _ extra: [String: String] = [:]) -> [String: String] {
    var environment = [
      "PATH": "/usr/bin:/bin", "HOME": folder, "XDG_STATE_HOME": folder + "/xdg", "LANG": "C.UTF-8",
      "TERM": "xterm", "TZ": "UTC",
    ]
    environment.merge(extra) { $1 }
    return environment
  }

  /// Starts susi with `arguments`, feeding `input` on stdin and closing it, and waits for it to
  /// end (killed after `timeout` seconds).
  func run(
    _ arguments: [String], input: String = "", environment: [String: String], timeout: Double = 120
  ) throws -> Run {
    let process = try start(arguments, environment: environment)
    process.send(input)
    process.closeInput()
    return process.wait(timeout: timeout)
  }

  /// `run` on a thread of its own, so waiting for the process never holds one of Swift's few
  /// cooperative threads (other tests, and in-process servers, need them).
  func runOffPool(
    _ arguments: [String], input: String = "", environment: [String: String], timeout: Double = 120
  ) async throws -> Run {
    try await Self.offPool {
      try run(arguments, input: input, environment: environment, timeout: timeout)
    }
  }

  /// Runs blocking `work` on a new thread and returns its result.
  static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      let thread = Thread { continuation.resume(with: Result { try work() }) }
      thread.start()
    }
  }

  /// Starts susi with pipes on all three streams; the caller feeds and ends it.
  func start(_ arguments: [String], environment: [String: String]) throws -> Running {
    try Running(path: path, arguments: arguments, environment: environment)
  }

  /// A susi process being driven through pipes.
  final class Running: Sendable {
    let process: Process
    private let input: FileHandle
    private let collected = Mutex((stdout: Data(), stderr: Data()))
    private let readers = DispatchGroup()

    init(path: String, arguments: [String], environment: [String: String]) throws {
      process = Process()
      process.executableURL = URL(fileURLWithPath: path)
      process.arguments = arguments
      process.environment = environment
      let stdin = Pipe()
      let stdout = Pipe()
      let stderr = Pipe()
      process.standardInput = stdin
      process.standardOutput = stdout
      process.standardError = stderr
      input = stdin.fileHandleForWriting
      try ProcessLaunch.run(process)
      collect(stdout.fileHandleForReading, isError: false)
      collect(stderr.fileHandleForReading, isError: true)
    }

    private func collect(_ handle: FileHandle, isError: Bool) {
      readers.enter()
      DispatchQueue.global().async {
        let data = handle.readToEndOfInput()
        self.collected.withLock {
          if isError { $0.stderr.append(data) } else { $0.stdout.append(data) }
        }
        self.readers.leave()
      }
    }

    var pid: Int32 { process.processIdentifier }

    func send(_ text: String) {
      guard !text.isEmpty else { return }
      try? input.write(contentsOf: Data(text.utf8))
    }

    func closeInput() { try? input.close() }

    /// Sends `signal` (SIGINT for Ctrl-C) to the process.
    func signal(_ number: Int32) { _ = kill(process.processIdentifier, number) }

    /// Waits for the process to end and its output to be read; kills it after `timeout`.
    func wait(timeout: Double) -> Run {
      let ended = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        self.process.waitUntilExit()
        ended.signal()
      }
      if ended.wait(timeout: .now() + timeout) == .timedOut {
        process.terminate()
        _ = kill(process.processIdentifier, SIGKILL)
        ended.wait()
      }
      readers.wait()
      let (stdout, stderr) = collected.withLock { ($0.stdout, $0.stderr) }
      return Run(
        stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr, as: UTF8.self),
        status: process.terminationStatus)
    }
  }
}
