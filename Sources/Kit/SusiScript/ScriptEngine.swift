import CDuktape
import Glibc
import Synchronization

/// Runs ECMAScript 5.1 scripts in duktape, sandboxed: in a worker process of their own with no
/// host functions (no files, network, modules or clock beyond the engine's `Date`), a byte budget
/// on the heap, a bounded result, and a time limit after which the worker is killed.
///
/// One worker is kept between scripts, so a script costs a round trip rather than a process;
/// scripts that run while it is busy get workers of their own, which leave when done.
///
/// ```swift
/// switch ScriptEngine.evaluate("6 * 7") {
/// case .success(let outcome): print(outcome.value)  // "42"
/// case .failure(let error): print(error)
/// }
/// ```
public enum ScriptEngine {
  /// The longest script accepted, in bytes.
  public static let maximumScriptBytes = 1 << 20

  /// Evaluates `source` and returns the value of its last expression as a string (empty for
  /// `undefined` and `null`) and what it passed to `print`, or why it failed. Blocks the calling
  /// thread until the script ends or its time is up.
  public static func evaluate(_ source: String, limits: ScriptLimits = ScriptLimits())
    -> Result<ScriptOutcome, ScriptError>
  {
    shared.evaluate(source, limits: limits)
  }

  /// The workers every caller shares.
  private static let shared = Workers()

  /// Scripts running and the one worker kept between them. Tests that watch which worker is
  /// kept make their own, so scripts run by other tests at the same time do not change it.
  final class Workers: Sendable {
    private let running = Counter()
    private let idle = Mutex(IdleWorker())

    /// The process id of the worker kept between scripts.
    var keptWorker: pid_t? { idle.withLock { $0.worker?.pid } }

    init() {}

    func evaluate(_ source: String, limits: ScriptLimits) -> Result<ScriptOutcome, ScriptError> {
      guard source.utf8.count <= maximumScriptBytes else {
        return .failure(.failed("the script is longer than \(maximumScriptBytes) bytes"))
      }
      guard running.reserve(limits.maximumConcurrentScripts) else {
        return .failure(.busy(limits.maximumConcurrentScripts))
      }
      defer { running.release() }
      var source = source
      var kept = idle.withLock { $0.take(matching: limits) }
      while true {
        let reused = kept != nil
        let worker: Worker
        if let taken = kept {
          worker = taken
          kept = nil
        } else {
          guard let fresh = Worker(limits) else {
            return .failure(.cannotStart(ScriptEngine.lastError))
          }
          worker = fresh
        }
        // A kept worker may have ended meanwhile (killed from outside, or after the engine gave
        // up): then a fresh one runs the script.
        guard worker.send(&source) else {
          let error = worker.end(limits: limits)
          if reused { continue }
          return .failure(error)
        }
        switch worker.readOutcome(limits: limits) {
        case .timedOut:
          worker.kill()
          return .failure(.timedOut(seconds: limits.seconds))
        case .ended:
          let error = worker.end(limits: limits)
          if reused { continue }
          return .failure(error)
        case .outcome(let status, let payload):
          let result = ScriptEngine.outcome(status, payload, limits: limits)
          if status == UInt8(ascii: "R") || status == UInt8(ascii: "E") {
            // A worker that answered normally serves the next script; one that ran out of memory
            // may have been left by duktape, so it is not kept.
            let spare = idle.withLock { $0.keep(worker) }
            spare?.discard()
          } else {
            worker.discard()
          }
          return result
        }
      }
    }
  }

  private static var lastError: String { String(cString: strerror(errno)) }

  /// What a worker's outcome says.
  private static func outcome(_ status: UInt8, _ payload: [UInt8], limits: ScriptLimits)
    -> Result<ScriptOutcome, ScriptError>
  {
    switch status {
    case UInt8(ascii: "R"):
      guard payload.count >= 8 else { return .failure(.crashed("a cut-off outcome")) }
      let length = littleEndian(payload[0..<8])
      let body = payload.dropFirst(8)
      guard length <= body.count else { return .failure(.crashed("a cut-off outcome")) }
      let value = String(decoding: body.prefix(length), as: UTF8.self)
      let printed = String(decoding: body.dropFirst(length), as: UTF8.self)
      return .success(ScriptOutcome(value: value, printed: printed))
    case UInt8(ascii: "E"):
      return .failure(.failed(String(decoding: payload, as: UTF8.self)))
    case UInt8(ascii: "M"):
      return .failure(.outOfMemory(bytes: limits.memoryBytes))
    case UInt8(ascii: "L"):
      return .failure(.outputTooLong(bytes: limits.outputBytes))
    default:
      return .failure(.crashed("an unknown outcome"))
    }
  }

  static func littleEndian(_ bytes: ArraySlice<UInt8>) -> Int {
    var value = 0
    for (index, byte) in bytes.enumerated() where index < 8 { value |= Int(byte) << (8 * index) }
    return value
  }

  /// How many scripts run at once.
  private final class Counter: Sendable {
    private let count = Mutex(0)

    func reserve(_ maximum: Int) -> Bool {
      count.withLock { count in
        guard count < maximum else { return false }
        count += 1
        return true
      }
    }

    func release() { count.withLock { $0 -= 1 } }
  }
}

/// The one worker kept between scripts.
private struct IdleWorker: ~Copyable {
  var worker: Worker?

  /// The kept worker when it was started with `limits`.
  mutating func take(matching limits: ScriptLimits) -> Worker? {
    guard let kept = worker, kept.limits == limits else { return nil }
    worker = nil
    return kept
  }

  /// Keeps `worker` when none is kept; otherwise gives it back to be discarded.
  mutating func keep(_ candidate: Worker) -> Worker? {
    guard worker == nil else { return candidate }
    worker = candidate
    return nil
  }
}

/// A worker process and the parent's end of its socket.
private struct Worker: Sendable {
  let pid: pid_t
  let fd: Int32
  let limits: ScriptLimits

  enum Reading {
    case outcome(UInt8, [UInt8])
    case timedOut
    case ended
  }

  init?(_ limits: ScriptLimits) {
    var fd: Int32 = -1
    let pid = susi_script_spawn(
      limits.memoryBytes, limits.outputBytes, ScriptEngine.maximumScriptBytes,
      UInt32(max(1, limits.seconds.rounded(.up))), &fd)
    guard pid > 0 else { return nil }
    self.pid = pid
    self.fd = fd
    self.limits = limits
  }

  /// Sends a script: false when the worker is gone.
  func send(_ source: inout String) -> Bool {
    source.withUTF8 { susi_script_request(fd, $0.baseAddress, $0.count) != 0 }
  }

  /// One outcome (status byte, 8 bytes of length, payload) within the time limit.
  func readOutcome(limits: ScriptLimits) -> Reading {
    let deadline = Self.now() + limits.seconds
    let maximum = 9 + 8 + limits.outputBytes + 65_536
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
      if bytes.count >= 9 {
        let length = ScriptEngine.littleEndian(bytes[1..<9])
        guard 9 + length <= maximum else { return .ended }
        if bytes.count >= 9 + length { return .outcome(bytes[0], Array(bytes[9..<(9 + length)])) }
      }
      let remaining = deadline - Self.now()
      guard remaining > 0 else { return .timedOut }
      var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, Int32(min(remaining * 1000, 60_000).rounded(.up)))
      if ready < 0 && errno != EINTR { return .ended }
      if ready <= 0 { continue }
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { return .ended }
      bytes += buffer.prefix(count)
    }
  }

  /// Why a worker that gave no outcome ended, after reaping it.
  func end(limits: ScriptLimits) -> ScriptError {
    close(fd)
    let status = reap()
    let signal = status & 0x7F
    if signal == SIGALRM || signal == SIGKILL { return .timedOut(seconds: limits.seconds) }
    return .crashed(signal != 0 ? "signal \(signal)" : "no outcome")
  }

  /// Stops the worker at once.
  func kill() {
    Glibc.kill(pid, SIGKILL)
    close(fd)
    _ = reap()
  }

  /// Lets the worker leave (it does when its socket closes) and reaps it.
  func discard() {
    close(fd)
    _ = reap()
  }

  private func reap() -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
  }

  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
/// The bounds one script runs within.
public struct ScriptLimits: Sendable, Equatable {
  /// Wall-clock time before the script is killed, in seconds.
  public var seconds: Double
  /// Bytes the engine's heap may hold at once (the engine's own start-up needs about 100 KiB).
  public var memoryBytes: Int
  /// Bytes of result and printed text together.
  public var outputBytes: Int
  /// Scripts running at once in this process; one more fails at once with `.busy`.
  public var maximumConcurrentScripts: Int

  /// By default 1 s, 16 MiB, 64 KiB and 4 scripts at once.
  public init(
    seconds: Double = 1, memoryBytes: Int = 16 << 20, outputBytes: Int = 64 << 10,
    maximumConcurrentScripts: Int = 4
  ) {
    self.seconds = seconds.isFinite ? min(max(seconds, 0.01), 60) : 1
    self.memoryBytes = max(memoryBytes, 0)
    self.outputBytes = max(outputBytes, 0)
    self.maximumConcurrentScripts = max(maximumConcurrentScripts, 1)
  }
}

/// What a script gave back.
public struct ScriptOutcome: Sendable, Equatable {
  /// The value of the last expression as a string; empty for `undefined` and `null`.
  public var value: String
  /// Everything passed to `print`, one line per call.
  public var printed: String

  public init(value: String, printed: String) {
    self.value = value
    self.printed = printed
  }
}

/// Why a script gave no value.
public enum ScriptError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The script threw or did not compile: the engine's message (`ReferenceError: …`).
  case failed(String)
  /// It ran longer than its limit and was stopped.
  case timedOut(seconds: Double)
  /// Its heap would have grown past the limit.
  case outOfMemory(bytes: Int)
  /// Its result and printed text were longer than the limit.
  case outputTooLong(bytes: Int)
  /// Too many scripts were running already.
  case busy(Int)
  /// The child process could not be started.
  case cannotStart(String)
  /// The child process ended without an outcome.
  case crashed(String)

  public var description: String {
    switch self {
    case .failed(let message): message
    case .timedOut(let seconds): "stopped after \(seconds) s"
    case .outOfMemory(let bytes): "stopped: it needed more than \(bytes) bytes of memory"
    case .outputTooLong(let bytes): "its result is longer than \(bytes) bytes"
    case .busy(let count): "\(count) scripts are running already"
    case .cannotStart(let reason): "cannot start the script engine: \(reason)"
    case .crashed(let reason): "the script engine ended with \(reason)"
    }
  }
}
