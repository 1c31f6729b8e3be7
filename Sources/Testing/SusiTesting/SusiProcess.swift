public import Foundation
import SusiFiles
public import SusiHTTPTesting
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A running executable started by `SusiBinary.start`. Its stdout and stderr are collected as
/// they come, on threads of their own, so the pipes never fill. Every wait has a deadline and
/// blocks its thread: from a test, call it through `onThread`.
///
/// The process is always ended: by `stop()`, by a watchdog after its lifetime, or with SIGKILL
/// when this object is released while the process still runs (a test that failed half-way).
public final class SusiProcess: Sendable {
  /// Where the process's standard streams go.
  public enum Streams {
    /// Pipes on all three, read and written through this object.
    case pipes
    /// Output and errors on `device` (a terminal the test reads itself); input too when
    /// `keyboard`, otherwise none.
    case terminal(FileHandle, keyboard: Bool)
  }

  /// What the process printed and how it ended.
  public struct Output: Sendable {
    public var stdout: String
    public var stderr: String
    /// The exit status, or the signal's number when a signal ended it.
    public var status: Int32
    /// True when a signal ended the process.
    public var signalled: Bool
  }

  /// What the process has printed so far.
  public struct Seen: Sendable {
    public var output: String
    public var errors: String
  }

  /// A wait that reached its deadline.
  public struct Timeout: Error, CustomStringConvertible {
    public var description: String
  }

  public let pid: Int32
  private let input: FileHandle?
  private let record: Record

  init(
    path: String, arguments: [String], environment: [String: String]?, streams: Streams,
    lifetime: Double
  ) throws {
    // The child's ends, closed here once it has started; the test's ends are the file handles.
    var childEnds: [Int32: Int32] = [:]
    var readers: [(handle: FileHandle, isErrors: Bool)] = []
    defer { for fd in childEnds.values { close(fd) } }
    switch streams {
    case .pipes:
      let stdin = try Spawn.pipe()
      childEnds[0] = stdin.read
      input = FileHandle(fileDescriptor: stdin.write, closeOnDealloc: true)
      for (child, isErrors) in [(Int32(1), false), (2, true)] {
        let pipe = try Spawn.pipe()
        childEnds[child] = pipe.write
        readers.append((FileHandle(fileDescriptor: pipe.read, closeOnDealloc: true), isErrors))
      }
    case .terminal(let device, let keyboard):
      childEnds[0] = keyboard ? dup(device.fileDescriptor) : try Spawn.nullDevice()
      childEnds[1] = dup(device.fileDescriptor)
      childEnds[2] = dup(device.fileDescriptor)
      input = nil
    }
    pid = try Spawn.start(
      path, arguments, environment: environment ?? ProcessInfo.processInfo.environment,
      streams: childEnds)
    let record = Record(readsStreams: !readers.isEmpty)
    self.record = record
    let pid = pid
    // The reaper: waits for the end, so the child never lingers as a zombie.
    Thread {
      let exit = Spawn.waitForExit(pid)
      record.change { $0.exit = exit }
    }.start()
    // The watchdog: ends the process once its lifetime is over, unless it has ended.
    DispatchQueue.global().asyncAfter(deadline: .now() + lifetime) {
      if !record.hasEnded { kill(pid, SIGKILL) }
    }
    for (handle, isErrors) in readers {
      Self.collect(handle, into: record, isErrors: isErrors)
    }
  }

  deinit {
    if !record.hasEnded { kill(pid, SIGKILL) }
  }

  private static func collect(_ handle: FileHandle, into record: Record, isErrors: Bool) {
    Thread {
      while true {
        let data = handle.readAvailable()
        record.change { contents in
          if data.isEmpty {
            if isErrors { contents.errorsOpen = false } else { contents.outputOpen = false }
          } else if isErrors {
            contents.errors.append(contentsOf: data)
          } else {
            contents.output.append(contentsOf: data)
          }
        }
        if data.isEmpty { return }
      }
    }.start()
  }

  /// What the process has printed so far.
  public var seen: Seen {
    record.read { Seen(output: $0.outputText, errors: $0.errorsText) }
  }

  /// Everything written to stdout so far.
  public var output: String { seen.output }

  /// Everything written to stderr so far.
  public var errors: String { seen.errors }

  /// Writes `text` to stdin (blocks while the pipe is full).
  public func send(_ text: String) {
    guard !text.isEmpty else { return }
    send(bytes: Data(text.utf8))
  }

  /// Writes `bytes` to stdin (blocks while the pipe is full).
  public func send(bytes: Data) {
    try? input?.write(contentsOf: bytes)
  }

  public func closeInput() {
    try? input?.close()
  }

  /// Sends signal `number` (SIGINT for Ctrl-C), unless the process has already ended.
  public func signal(_ number: Int32) {
    if !record.hasEnded { kill(pid, number) }
  }

  /// Waits until `condition` holds for what was printed, at most `timeout` seconds; whether it
  /// held.
  public func waitFor(timeout: Double = Double(hangLimitSeconds), _ condition: (Seen) -> Bool)
    -> Bool
  {
    record.wait(until: Date(timeIntervalSinceNow: timeout)) {
      condition(Seen(output: $0.outputText, errors: $0.errorsText))
    }
  }

  /// The next stdout line not yet taken, without its newline; nil once stdout has ended with
  /// no more lines. Throws when none comes within `timeout` seconds.
  public func nextLine(timeout: Double = Double(hangLimitSeconds)) throws -> String? {
    let ready = record.wait(until: Date(timeIntervalSinceNow: timeout)) {
      $0.hasCompleteLine || !$0.outputOpen
    }
    if let line = record.takeLine() { return line }
    guard ready else {
      throw Timeout(
        description: "no line on stdout within \(timeout) s; stderr: \(errors.suffix(2000))")
    }
    return nil
  }

  /// Waits for the process to end (SIGKILL after `timeout` seconds) and for its output to be
  /// read; what it printed and how it ended.
  public func waitForExit(timeout: Double = Double(hangLimitSeconds)) -> Output {
    if !record.wait(until: Date(timeIntervalSinceNow: timeout), for: { $0.exit != nil }) {
      kill(pid, SIGKILL)
      _ = record.wait(until: Date(timeIntervalSinceNow: 60)) { $0.exit != nil }
    }
    // A child of the process may still hold a pipe open: the output is what came until then.
    _ = record.wait(until: Date(timeIntervalSinceNow: 10)) { !$0.outputOpen && !$0.errorsOpen }
    return record.read { contents in
      Output(
        stdout: contents.outputText, stderr: contents.errorsText,
        status: contents.exit?.status ?? -1, signalled: contents.exit?.signalled ?? false)
    }
  }

  /// Sends `signal` (SIGTERM, as a person's Ctrl-C would) and waits for the end, with SIGKILL
  /// after `timeout` seconds. Safe to call again, and after the process has ended.
  @discardableResult
  public func stop(signal: Int32 = SIGTERM, timeout: Double = 30) -> Output {
    self.signal(signal)
    closeInput()
    return waitForExit(timeout: timeout)
  }
}

/// What a process printed and whether it ended, shared with its reader threads; changes wake
/// the waiters.
private final class Record: Sendable {
  struct Contents: Sendable {
    var output: [UInt8] = []
    var errors: [UInt8] = []
    /// Where the next stdout line not yet taken starts.
    var lineStart = 0
    var outputOpen: Bool
    var errorsOpen: Bool
    var exit: Spawn.Exit?

    var outputText: String { String(decoding: output, as: UTF8.self) }
    var errorsText: String { String(decoding: errors, as: UTF8.self) }
    var hasCompleteLine: Bool { output[lineStart...].contains(0x0A) }
  }

  private let contents: Mutex<Contents>
  private let changed = NSCondition()

  init(readsStreams: Bool) {
    contents = Mutex(Contents(outputOpen: readsStreams, errorsOpen: readsStreams))
  }

  var hasEnded: Bool { contents.withLock { $0.exit != nil } }

  func read<T>(_ body: (Contents) -> T) -> T {
    contents.withLock { body($0) }
  }

  func change(_ body: (inout Contents) -> Void) {
    contents.withLock { body(&$0) }
    changed.lock()
    changed.broadcast()
    changed.unlock()
  }

  /// Waits until `condition` holds or `deadline` passes; whether it held.
  func wait(until deadline: Date, for condition: (Contents) -> Bool) -> Bool {
    changed.lock()
    defer { changed.unlock() }
    while !read(condition) {
      if !changed.wait(until: deadline) { return read(condition) }
    }
    return true
  }

  /// Takes the next complete stdout line, or what is left once stdout has ended.
  func takeLine() -> String? {
    contents.withLock { contents in
      let rest = contents.output[contents.lineStart...]
      if let newline = rest.firstIndex(of: 0x0A) {
        defer { contents.lineStart = newline + 1 }
        return String(decoding: rest[..<newline], as: UTF8.self)
      }
      guard !contents.outputOpen, !rest.isEmpty else { return nil }
      contents.lineStart = contents.output.count
      return String(decoding: rest, as: UTF8.self)
    }
  }
}
