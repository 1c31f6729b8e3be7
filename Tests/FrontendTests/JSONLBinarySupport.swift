import Foundation
import SusiCore
import SusiFiles
import SusiJSON
import SusiTesting
import Synchronization

/// The built `susi` binary, next to the test bundle.
enum JSONLBinary {
  static var path: String {
    let bundle =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("susi")
      .path
  }

  /// A fresh, empty folder for one test's state.
  static func freshFolder() throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "susi-jsonl-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }

  /// Runs `susi ARGUMENTS` to its end with empty stdin; returns stdout and the exit status.
  /// The blocking reads happen on a thread of their own, never on the test's executor.
  static func run(_ arguments: [String]) async throws -> (output: String, status: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let stdout = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    try ProcessLaunch.run(process)
    let reading = stdout.fileHandleForReading
    return await withCheckedContinuation { continuation in
      let thread = Thread {
        let data = reading.readToEndOfInput()
        process.waitUntilExit()
        continuation.resume(
          returning: (String(decoding: data, as: UTF8.self), process.terminationStatus))
      }
      thread.start()
    }
  }
}

/// Why a conversation with the binary went wrong.
struct JSONLProcessError: Error, CustomStringConvertible {
  var description: String
}

/// A running `susi jsonl`: the test writes lines to its stdin and reads its stdout line by line.
final class JSONLProcess: Sendable {
  private struct Status {
    var lines: [[UInt8]] = []
    var partial: [UInt8] = []
    var ended = false
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextWaiter = 0
    var exitStatus: Int32?
    var exitWaiters: [CheckedContinuation<Int32, Never>] = []
  }

  private let process: Process
  private let stdin: FileHandle
  private final class Shared: Sendable {
    let status = Mutex(Status())
  }

  private let shared = Shared()
  /// Where the process's stderr goes, for failure messages.
  let errorLog: String
  /// How many lines the test has consumed.
  private let consumed = Mutex(0)

  init(_ arguments: [String], folder: String) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: JSONLBinary.path)
    // A generous drain timeout: on a busy machine a second can take much longer than a second.
    process.arguments =
      ["jsonl", "--state-dir", folder, "--fsync", "never", "--drain-timeout", "120"] + arguments
    errorLog = folder + "/stderr.txt"
    _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle(forWritingAtPath: errorLog)
    stdin = input.fileHandleForWriting
    let shared = shared
    process.terminationHandler = { process in
      let waiters = shared.status.withLock { s in
        s.exitStatus = process.terminationStatus
        defer { s.exitWaiters = [] }
        return s.exitWaiters
      }
      for waiter in waiters { waiter.resume(returning: process.terminationStatus) }
    }
    try ProcessLaunch.run(process)
    let reading = output.fileHandleForReading
    let thread = Thread {
      while true {
        let data = reading.readAvailable()
        let waiters = shared.status.withLock { s -> [CheckedContinuation<Void, Never>] in
          if data.isEmpty {
            s.ended = true
          } else {
            s.partial += data
            while let newline = s.partial.firstIndex(of: 0x0a) {
              s.lines.append(Array(s.partial[..<newline]))
              s.partial.removeSubrange(...newline)
            }
          }
          defer { s.waiters = [:] }
          return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
        if data.isEmpty { return }
      }
    }
    thread.start()
  }

  var pid: Int32 { process.processIdentifier }

  /// Writes `line` and a newline to the process's stdin.
  func send(_ line: String) {
    try? stdin.write(contentsOf: Data((line + "\n").utf8))
  }

  /// Writes raw bytes to stdin (may block until the process reads them).
  func send(bytes: Data) {
    try? stdin.write(contentsOf: bytes)
  }

  func closeInput() {
    try? stdin.close()
  }

  func signal(_ number: Int32) {
    kill(process.processIdentifier, number)
  }

  /// The next unread stdout line, parsed. Fails after `timeout` seconds (a safety net for a
  /// broken build; a passing test never waits that long).
  func next(timeout: Double = 120) async throws -> JSON {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while true {
      let index = consumed.withLock { $0 }
      let (line, ended) = shared.status.withLock {
        ($0.lines.count > index ? $0.lines[index] : nil, $0.ended)
      }
      if let line {
        consumed.withLock { $0 += 1 }
        do {
          return try JSONParser.parse(line)
        } catch {
          throw JSONLProcessError(
            description: "stdout line is not JSON: \(String(decoding: line, as: UTF8.self))")
        }
      }
      if ended { throw JSONLProcessError(description: "stdout ended; stderr: \(stderrText)") }
      guard ContinuousClock.now < deadline else {
        throw JSONLProcessError(description: "no output within \(timeout) s; stderr: \(stderrText)")
      }
      await waitForOutput(until: deadline)
    }
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
    while true {
      do {
        out.append(try await next())
      } catch {
        if shared.status.withLock({ $0.ended })
          && consumed.withLock({ $0 }) >= shared.status.withLock({ $0.lines.count })
        {
          return out
        }
        throw error
      }
    }
  }

  /// Waits for the process to exit and returns its status.
  func exitStatus() async -> Int32 {
    await withCheckedContinuation { continuation in
      let known = shared.status.withLock { s -> Int32? in
        if let code = s.exitStatus { return code }
        s.exitWaiters.append(continuation)
        return nil
      }
      if let known { continuation.resume(returning: known) }
    }
  }

  /// Every stdout line so far, as text.
  var rawLines: [String] {
    shared.status.withLock { $0.lines.map { String(decoding: $0, as: UTF8.self) } }
  }

  var stderrText: String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }

  /// Peak resident memory so far (VmHWM), in bytes.
  var peakMemory: Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return kilobytes * 1024
  }

  private func waitForOutput(until deadline: ContinuousClock.Instant) async {
    let key = shared.status.withLock {
      $0.nextWaiter += 1
      return $0.nextWaiter
    }
    let timer = Task {
      try? await Task.sleep(until: deadline)
      let waiter = shared.status.withLock { $0.waiters.removeValue(forKey: key) }
      waiter?.resume()
    }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = shared.status.withLock { s in
        let index = consumed.withLock { $0 }
        if s.lines.count > index || s.ended { return true }
        s.waiters[key] = continuation
        return false
      }
      if now { continuation.resume() }
    }
    timer.cancel()
  }
}
