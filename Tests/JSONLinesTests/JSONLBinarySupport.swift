import Foundation
import SusiCore
import SusiHTTPTesting
import SusiJSON
import SusiTesting

/// The built `susi` for the JSON-lines tests.
enum JSONLBinary {
  /// A fresh, empty folder for one test's state.
  static func freshFolder() throws -> String {
    let folder = TestScratch.root.appendingPathComponent(
      "susi-jsonl-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }

  /// Runs `susi ARGUMENTS` to its end with empty stdin; returns stdout and the exit status.
  static func run(_ arguments: [String]) async throws -> (output: String, status: Int32) {
    let run = try await SusiBinary.built().run(arguments)
    return (run.stdout, run.status)
  }
}

/// Why a conversation with the binary went wrong.
struct JSONLProcessError: Error, CustomStringConvertible {
  var description: String
}

/// A running `susi jsonl`: the test writes lines to its stdin and reads its stdout line by line,
/// parsed.
final class JSONLProcess: Sendable {
  private let process: SusiProcess

  init(_ arguments: [String], folder: String) throws {
    // A generous drain timeout: on a busy machine a second can take much longer than a second.
    process = try SusiBinary.built().start(
      ["jsonl", "--state-dir", folder, "--fsync", "never", "--drain-timeout", "120"] + arguments)
  }

  var pid: Int32 { process.pid }

  /// Writes `line` and a newline to the process's stdin.
  func send(_ line: String) {
    process.send(line + "\n")
  }

  /// Writes raw bytes to stdin (may block until the process reads them).
  func send(bytes: Data) {
    process.send(bytes: bytes)
  }

  func closeInput() {
    process.closeInput()
  }

  func signal(_ number: Int32) {
    process.signal(number)
  }

  /// The next unread stdout line, parsed, or nil once stdout has ended. Fails after `timeout`
  /// seconds (a safety net for a broken build; a passing test never waits that long).
  private func nextIfAny(timeout: Double) async throws -> JSON? {
    let process = process
    guard let line = try await onThread({ try process.nextLine(timeout: timeout) }) else {
      return nil
    }
    do {
      return try JSONParser.parse(Array(line.utf8))
    } catch {
      throw JSONLProcessError(description: "stdout line is not JSON: \(line)")
    }
  }

  /// The next unread stdout line, parsed; fails when stdout has ended.
  func next(timeout: Double = 120) async throws -> JSON {
    guard let line = try await nextIfAny(timeout: timeout) else {
      throw JSONLProcessError(description: "stdout ended; stderr: \(stderrText)")
    }
    return line
  }

  /// Lines until (and including) the first one that `matches`.
  func lines(through matches: (JSON) -> Bool) async throws -> [JSON] {
    var out: [JSON] = []
    while true {
      let line = try await next()
      out.append(line)
      if matches(line) { return out }
    }
  }

  /// Every remaining stdout line, once the process has closed stdout.
  func remainingLines() async throws -> [JSON] {
    var out: [JSON] = []
    while let line = try await nextIfAny(timeout: Double(hangLimitSeconds)) {
      out.append(line)
    }
    return out
  }

  /// Waits for the process to exit (killed after `timeout` seconds) and returns its status.
  func exitStatus(timeout: Double = 120) async -> Int32 {
    let process = process
    return await onThread { process.waitForExit(timeout: timeout).status }
  }

  /// Every stdout line so far, as text.
  var rawLines: [String] {
    process.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(
      String.init)
  }

  var stderrText: String { process.errors }

  /// Peak resident memory so far (VmHWM), in bytes.
  var peakMemory: Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return kilobytes * 1024
  }
}
