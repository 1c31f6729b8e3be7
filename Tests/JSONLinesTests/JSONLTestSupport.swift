import Foundation
import SusiClock
import SusiCore
import SusiJSON
import SusiJSONLines
import SusiStore
import Synchronization

/// An effects runner that answers from a script, without any I/O. Results can be held back
/// and released by the test, to stand for a request still in flight.
final class JSONLScriptedRunner: EffectsRunner {
  private struct Pending {
    var result: Action
    var deliver: ResultDelivery
  }

  private struct Status {
    var holding: Bool
    var held: [Pending] = []
    var outstanding = 0
    var idleWaiters: [(key: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var nextWaiter = 0
    var started: [Effect] = []
  }

  private let status: Mutex<Status>
  /// Where effects would run, for a session to run there too (`EffectsRunner`).
  let preferredTaskExecutor: (any TaskExecutor)?

  init(holding: Bool = false, preferredExecutor: (any TaskExecutor)? = nil) {
    status = Mutex(Status(holding: holding))
    preferredTaskExecutor = preferredExecutor
  }

  /// Every effect started so far.
  var started: [Effect] { status.withLock { $0.started } }

  /// How many results are held back.
  var heldCount: Int { status.withLock { $0.held.count } }

  /// The scripted answer to an effect: what a runner with a perfect, instant network would say.
  static func answer(_ effect: Effect, cause: Int) -> Action? {
    switch effect {
    case .chat(_, let query, _):
      .messageReceived(
        .init(
          query: query, answers: [.answer(expression: "echo: \(query)", language: nil, mood: nil)]))
    case .cancel: nil
    default:
      .requestFailed(
        .init(cause: cause, error: RequestError(kind: .network, message: "no network in tests")))
    }
  }

  func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery) {
    let result = Self.answer(effect, cause: cause)
    let send: Bool = status.withLock {
      $0.started.append(effect)
      guard let result else { return false }
      $0.outstanding += 1
      if $0.holding {
        $0.held.append(Pending(result: result, deliver: deliver))
        return false
      }
      return true
    }
    if send, let result { deliverLater(result, deliver) }
  }

  /// Delivers every held result and stops holding.
  func release() {
    let held = status.withLock {
      $0.holding = false
      let held = $0.held
      $0.held = []
      return held
    }
    for pending in held { deliverLater(pending.result, pending.deliver) }
  }

  private func deliverLater(_ result: Action, _ deliver: @escaping ResultDelivery) {
    Task {
      await deliver(result)
      let waiters = status.withLock {
        $0.outstanding -= 1
        guard $0.outstanding == 0 else { return [CheckedContinuation<Void, Never>]() }
        let waiters = $0.idleWaiters.map(\.continuation)
        $0.idleWaiters = []
        return waiters
      }
      for waiter in waiters { waiter.resume() }
    }
  }

  func waitUntilIdle(timeout: Double) async -> Bool {
    let key = status.withLock {
      $0.nextWaiter += 1
      return $0.nextWaiter
    }
    // The timeout only bounds a test that has gone wrong; a passing test never reaches it.
    let timer = Task {
      try? await Task.sleep(for: .seconds(timeout))
      wakeWaiter(key)
    }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = status.withLock {
        if $0.outstanding == 0 { return true }
        $0.idleWaiters.append((key, continuation))
        return false
      }
      if now { continuation.resume() }
    }
    timer.cancel()
    return status.withLock { $0.outstanding == 0 }
  }

  private func wakeWaiter(_ key: Int) {
    let waiter = status.withLock { s -> CheckedContinuation<Void, Never>? in
      guard let index = s.idleWaiters.firstIndex(where: { $0.key == key }) else { return nil }
      return s.idleWaiters.remove(at: index).continuation
    }
    waiter?.resume()
  }

  func shutdown() async {
    let waiters = status.withLock {
      $0.held = []
      $0.holding = false
      $0.outstanding = 0
      let waiters = $0.idleWaiters.map(\.continuation)
      $0.idleWaiters = []
      return waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// Input from memory, handed out in chunks of a chosen size (to cross line boundaries).
final class JSONLMemoryInput: JSONLinesInput {
  private let bytes: [UInt8]
  private let chunkSize: Int
  private let position = Mutex(0)

  convenience init(_ text: String, chunkSize: Int = 1 << 16) {
    self.init(bytes: Array(text.utf8), chunkSize: chunkSize)
  }

  init(bytes: [UInt8], chunkSize: Int = 1 << 16) {
    self.bytes = bytes
    self.chunkSize = chunkSize
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, JSONLinesIOError> {
    position.withLock { offset in
      let count = min(buffer.count, chunkSize, bytes.count - offset)
      guard count > 0 else { return .success(0) }
      bytes.withUnsafeBytes { source in
        buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
      }
      offset += count
      return .success(count)
    }
  }
}

/// Input made up on the fly from pieces, some of them long runs of one byte, so a test can send
/// lines of many megabytes without holding them itself.
final class JSONLGeneratedInput: JSONLinesInput {
  enum Piece {
    case bytes([UInt8])
    case run(UInt8, count: Int)

    var count: Int {
      switch self {
      case .bytes(let bytes): bytes.count
      case .run(_, let count): count
      }
    }
  }

  private let pieces: [Piece]
  /// The piece being read and the offset in it.
  private let position = Mutex((piece: 0, offset: 0))

  init(_ pieces: [Piece]) {
    self.pieces = pieces
  }

  /// `prefix`, `count` copies of `fill`, then `suffix`.
  convenience init(prefix: String, fill: UInt8, count: Int, suffix: String) {
    self.init([.bytes(Array(prefix.utf8)), .run(fill, count: count), .bytes(Array(suffix.utf8))])
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, JSONLinesIOError> {
    position.withLock { position in
      var written = 0
      while written < buffer.count && position.piece < pieces.count {
        let piece = pieces[position.piece]
        let count = min(buffer.count - written, piece.count - position.offset)
        let target = buffer.baseAddress! + written
        switch piece {
        case .bytes(let bytes):
          bytes.withUnsafeBytes {
            target.copyMemory(from: $0.baseAddress! + position.offset, byteCount: count)
          }
        case .run(let byte, _):
          target.initializeMemory(as: UInt8.self, repeating: byte, count: count)
        }
        written += count
        position.offset += count
        if position.offset == piece.count {
          position.piece += 1
          position.offset = 0
        }
      }
      return .success(written)
    }
  }
}

/// Output kept in memory; tests read it as parsed lines and can wait for a number of lines.
final class JSONLCollector: JSONLinesOutput {
  private struct Status {
    var bytes: [UInt8] = []
    var lineCount = 0
    var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var failing = false
  }

  private let status = Mutex(Status())

  /// Makes every later write fail, as when the reader has gone away.
  func failFromNowOn() { status.withLock { $0.failing = true } }

  func write(_ bytes: UnsafeRawBufferPointer) -> Result<Void, JSONLinesIOError> {
    let ready = status.withLock { s -> [CheckedContinuation<Void, Never>]? in
      if s.failing { return nil }
      s.bytes.append(contentsOf: bytes)
      s.lineCount += bytes.count { $0 == 0x0a }
      var ready: [CheckedContinuation<Void, Never>] = []
      s.waiters.removeAll { waiter in
        guard waiter.count <= s.lineCount else { return false }
        ready.append(waiter.continuation)
        return true
      }
      return ready
    }
    guard let ready else { return .failure(JSONLinesIOError("the reader went away")) }
    for continuation in ready { continuation.resume() }
    return .success(())
  }

  /// Returns once at least `count` lines have been written.
  func waitForLines(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let now = status.withLock { s in
        if s.lineCount >= count { return true }
        s.waiters.append((count, continuation))
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Everything written, as text.
  var text: String { status.withLock { String(decoding: $0.bytes, as: UTF8.self) } }

  /// Each line written, as raw bytes (without the newline).
  var rawLines: [[UInt8]] {
    status.withLock {
      $0.bytes.split(separator: 0x0a, omittingEmptySubsequences: false).dropLast().map(Array.init)
    }
  }

  /// Each line written, parsed; a line that is not JSON fails the test through `#require`.
  func lines() throws -> [JSON] { try rawLines.map { try JSONParser.parse($0) } }
}

/// What the session wrote, sorted into the kinds of line it writes.
struct JSONLTranscript {
  var lines: [JSON]

  /// Event envelopes (lines with a `seq` and a `type`).
  var events: [JSON] { lines.filter { $0["seq"] != nil && $0["type"] != nil } }
  /// Error lines.
  var errors: [JSON] { lines.filter { $0["error"] != nil } }
  /// Events sent by the session itself (origin `jsonl`).
  var accepted: [JSON] { events.filter { $0["origin"] == "jsonl" } }
}

/// A store over memory and a scripted runner, with a session around it.
struct JSONLHarness {
  let sink = MemoryEventSink()
  let runner: JSONLScriptedRunner
  let store: Store
  let output = JSONLCollector()

  init(
    holding: Bool = false, recovered: Recovered = Recovered(),
    inFlightLimit: Int = Store.defaultInFlightLimit, preferredExecutor: (any TaskExecutor)? = nil
  ) {
    runner = JSONLScriptedRunner(holding: holding, preferredExecutor: preferredExecutor)
    store = Store(
      sink: sink, runner: runner, clock: ManualTimeSource(millisecondsSince1970: 1_795_341_600_000),
      recovered: recovered,
      inFlightLimit: inFlightLimit)
  }

  /// Options for tests: a drain timeout that only bounds a test gone wrong.
  static let options = JSONLinesOptions(drainTimeout: 120)

  func session(_ input: any JSONLinesInput, _ options: JSONLinesOptions = JSONLHarness.options)
    -> JSONLinesSession
  {
    JSONLinesSession(
      store: store, input: input, output: output, options: options, diagnostics: { _ in })
  }

  /// Runs a session over `text` to its end.
  func run(_ text: String, _ options: JSONLinesOptions = JSONLHarness.options) async
    -> JSONLinesSummary
  {
    await session(JSONLMemoryInput(text), options).run()
  }

  func transcript() throws -> JSONLTranscript { JSONLTranscript(lines: try output.lines()) }

  /// The events in the log, decoded.
  func loggedEvents() throws -> [Event] { try sink.lines.map { try Event.decode($0) } }
}

/// A pipe whose read end a session reads, written to by the test.
final class JSONLPipe: Sendable {
  let readEnd: Int32
  let writeEnd: Int32

  init() throws {
    var ends: [Int32] = [0, 0]
    guard Glibc.pipe(&ends) == 0 else { throw JSONLinesIOError("pipe failed") }
    readEnd = ends[0]
    writeEnd = ends[1]
  }

  func write(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      _ = FileDescriptorOutput(descriptor: writeEnd).write(UnsafeRawBufferPointer(bytes))
    }
  }

  /// Ends the input; the read end is closed when the pipe is released.
  func closeWriteEnd() { Glibc.close(writeEnd) }

  deinit { Glibc.close(readEnd) }
}
