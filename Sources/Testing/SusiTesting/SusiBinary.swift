import Foundation
public import SusiHTTPTesting

/// An executable the tests run as a person or a script would: by default the `susi` built next
/// to the test bundle.
public struct SusiBinary: Sendable {
  /// Why the executable could not be used.
  public struct Missing: Error, CustomStringConvertible {
    public var description: String
  }

  public let path: String

  public init(path: String) {
    self.path = path
  }

  /// The executable called `name` built next to the test bundle. Throws (so the test fails,
  /// never skips) when it is not there.
  public static func built(_ name: String = "susi") throws -> SusiBinary {
    let me =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    var folder = URL(fileURLWithPath: me).resolvingSymlinksInPath().deletingLastPathComponent()
    var looked: [String] = []
    // On some platforms the test bundle is a folder holding the test executable.
    for _ in 0..<4 {
      let candidate = folder.appendingPathComponent(name).path
      if FileManager.default.isExecutableFile(atPath: candidate) {
        return SusiBinary(path: candidate)
      }
      looked.append(folder.path)
      folder = folder.deletingLastPathComponent()
    }
    throw Missing(
      description: "the \(name) executable is not built next to the tests (looked in "
        + looked.joined(separator: ", ") + "); run swift build --build-tests first")
  }

  /// An environment that holds nothing from the person running the tests: a UTF-8 locale,
  /// `HOME` and `XDG_STATE_HOME` inside `folder`, times in UTC whatever the machine's zone;
  /// `extra` is added last.
  public static func isolatedEnvironment(_ folder: String, _ extra: [String: String] = [:])
    -> [String: String]
  {
    var environment = [
      "PATH": "/usr/bin:/bin", "HOME": folder, "XDG_STATE_HOME": folder + "/xdg", "LANG": "C.UTF-8",
      "TERM": "xterm", "TZ": "UTC", "TMPDIR": TestScratch.root.path,
    ]
    environment.merge(extra) { $1 }
    return environment
  }

  /// `--state-dir` and `--log` inside `folder`, so nothing of the person's is touched and the
  /// built-in server starts on a free port.
  public static func isolatedArguments(_ folder: String) -> [String] {
    ["--state-dir", folder + "/state", "--log", folder + "/events.jsonl"]
  }

  /// Starts the executable with `arguments`. `environment` nil passes the tests' own on.
  /// The process ends (SIGKILL) after `lifetime` seconds whatever happens, and when the
  /// returned `SusiProcess` is released while it still runs.
  public func start(
    _ arguments: [String], environment: [String: String]? = nil,
    streams: SusiProcess.Streams = .pipes, lifetime: Double = 600
  ) throws -> SusiProcess {
    try SusiProcess(
      path: path, arguments: arguments, environment: environment, streams: streams,
      lifetime: lifetime)
  }

  /// Runs the executable to its end, feeding `input` on stdin and then closing it; killed
  /// after `timeout` seconds. Blocks: call it off the cooperative pool (or use `run`).
  public func runBlocking(
    _ arguments: [String], input: String = "", environment: [String: String]? = nil,
    timeout: Double = Double(hangLimitSeconds)
  ) throws -> SusiProcess.Output {
    let process = try start(arguments, environment: environment, lifetime: timeout + 60)
    process.send(input)
    process.closeInput()
    return process.waitForExit(timeout: timeout)
  }

  /// `runBlocking` on a thread of its own.
  public func run(
    _ arguments: [String], input: String = "", environment: [String: String]? = nil,
    timeout: Double = Double(hangLimitSeconds)
  ) async throws -> SusiProcess.Output {
    try await onThread {
      try runBlocking(arguments, input: input, environment: environment, timeout: timeout)
    }
  }
}
