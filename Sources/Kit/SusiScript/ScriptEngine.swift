import CDuktape
import Glibc
import Synchronization

/// Runs ECMAScript 5.1 scripts in duktape, sandboxed: each script runs in a child process of its
/// own with no host functions (no files, network, modules or clock beyond the engine's `Date`),
/// a byte budget on its heap, a bounded result, and a time limit after which the child is killed.
///
/// ```swift
/// switch ScriptEngine.evaluate("6 * 7") {
/// case .success(let outcome): print(outcome.value)  // "42"
/// case .failure(let error): print(error)
/// }
/// ```
public enum ScriptEngine {
  /// Evaluates `source` and returns the value of its last expression as a string (empty for
  /// `undefined` and `null`) and what it passed to `print`, or why it failed. Blocks the calling
  /// thread until the script ends or its time is up.
  public static func evaluate(_ source: String, limits: ScriptLimits = ScriptLimits())
    -> Result<ScriptOutcome, ScriptError>
  {
    guard running.reserve(limits.maximumConcurrentScripts) else {
      return .failure(.busy(limits.maximumConcurrentScripts))
    }
    defer { running.release() }
    var source = source
    var readEnd: Int32 = -1
    let pid = source.withUTF8 { text in
      susi_script_spawn(
        text.baseAddress, text.count, limits.memoryBytes, limits.outputBytes,
        UInt32(max(1, limits.seconds.rounded(.up))), &readEnd)
    }
    guard pid > 0 else {
      return .failure(.cannotStart(String(cString: strerror(errno))))
    }
    let (bytes, finished) = read(readEnd, limit: limits.outputBytes + 16, seconds: limits.seconds)
    close(readEnd)
    if !finished { kill(pid, SIGKILL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    guard finished else { return .failure(.timedOut(seconds: limits.seconds)) }
    return outcome(bytes, exitStatus: status, limits: limits)
  }

  /// What the child sent: its status byte and the text that follows.
  private static func outcome(_ bytes: [UInt8], exitStatus: Int32, limits: ScriptLimits)
    -> Result<ScriptOutcome, ScriptError>
  {
    guard let status = bytes.first else {
      let signal = exitStatus & 0x7F
      if signal == SIGXCPU || signal == SIGKILL {
        return .failure(.timedOut(seconds: limits.seconds))
      }
      return .failure(.crashed(signal != 0 ? "signal \(signal)" : "no outcome"))
    }
    let rest = bytes.dropFirst()
    switch status {
    case UInt8(ascii: "R"):
      guard rest.count >= 8 else { return .failure(.crashed("a cut-off outcome")) }
      var length = 0
      for (index, byte) in rest.prefix(8).enumerated() { length |= Int(byte) << (8 * index) }
      let body = rest.dropFirst(8)
      guard length <= body.count else { return .failure(.crashed("a cut-off outcome")) }
      let value = String(decoding: body.prefix(length), as: UTF8.self)
      let printed = String(decoding: body.dropFirst(length), as: UTF8.self)
      return .success(ScriptOutcome(value: value, printed: printed))
    case UInt8(ascii: "E"):
      return .failure(.failed(String(decoding: rest, as: UTF8.self)))
    case UInt8(ascii: "M"):
      return .failure(.outOfMemory(bytes: limits.memoryBytes))
    case UInt8(ascii: "L"):
      return .failure(.outputTooLong(bytes: limits.outputBytes))
    default:
      return .failure(.crashed("an unknown outcome"))
    }
  }

  /// Reads `fd` to its end, at most `limit` bytes, within `seconds`; `finished` is false when
  /// the time ran out first.
  private static func read(_ fd: Int32, limit: Int, seconds: Double) -> (
    bytes: [UInt8], finished: Bool
  ) {
    let deadline = now() + seconds
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
      let remaining = deadline - now()
      guard remaining > 0 else { return (bytes, false) }
      var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, Int32(min(remaining * 1000, 60_000).rounded(.up)))
      if ready < 0 {
        if errno == EINTR { continue }
        return (bytes, true)
      }
      if ready == 0 { continue }
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        return (bytes, true)
      }
      if count == 0 { return (bytes, true) }
      bytes += buffer.prefix(count)
      if bytes.count > limit { return (Array(bytes.prefix(limit)), true) }
    }
  }

  private static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  private static let running = Counter()

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
