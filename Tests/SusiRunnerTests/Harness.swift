import Foundation
import SusiClock
import SusiCore
import SusiHTTPTesting
import SusiJSON
import SusiRunner
import SusiTesting
import Synchronization

/// A runner wired to a fake transport and a test clock in a fresh temporary state folder,
/// with every delivered result recorded.
final class Harness: Sendable {
  let clock: ManualTimeSource
  let transport: FakeTransport
  let directory: String
  let runner: SusiRunner
  let results = Results()

  init(
    holding: Bool = false, configure: (inout RunnerConfiguration) -> Void = { _ in },
    respond responder: @escaping FakeTransport.Responder
  ) {
    clock = ManualTimeSource()
    transport = FakeTransport(holding: holding, responder)
    directory = Harness.makeTemporaryFolder()
    var configuration = RunnerConfiguration(
      stateDirectory: directory, embeddedServerURL: "http://127.0.0.1:4000",
      websearchURL: "https://search.test/")
    configuration.clock = clock
    configuration.transport = transport
    configuration.randomSeed = 42
    configuration.timezoneOffsetMinutes = -60
    configuration.machineLanguage = "de"
    configure(&configuration)
    runner = SusiRunner(configuration: configuration)
  }

  /// A harness whose server accepts everything.
  convenience init() {
    self.init { _ in .json(#"{"accepted":true}"#) }
  }

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  static func makeTemporaryFolder() -> String {
    let url = TestScratch.root.appendingPathComponent(
      "susi-runner-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
  }

  /// Starts `effect` for event `cause`; its result lands in `results`.
  func start(_ effect: Effect, cause: Int) {
    let results = results
    runner.start(effect, cause: cause) { action in results.append(cause: cause, action) }
  }

  /// Starts `effect` and returns its result.
  func run(_ effect: Effect, cause: Int = 1) async -> Action {
    start(effect, cause: cause)
    return await results.next(for: cause)
  }
}

/// Every result delivered, in order, with the cause it was started for.
final class Results: Sendable {
  private struct Book {
    var entries: [(cause: Int, action: Action)] = []
    var taken: [Int: Int] = [:]
    var waiters: [(cause: Int, continuation: CheckedContinuation<Action, Never>)] = []
    var countWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let book = Mutex(Book())

  func append(cause: Int, _ action: Action) {
    let (waiter, counted) = book.withLock {
      book -> (CheckedContinuation<Action, Never>?, [CheckedContinuation<Void, Never>]) in
      book.entries.append((cause, action))
      let total = book.entries.count
      let counted = book.countWaiters.filter { $0.count <= total }.map(\.continuation)
      book.countWaiters.removeAll { $0.count <= total }
      guard let index = book.waiters.firstIndex(where: { $0.cause == cause }) else {
        return (nil, counted)
      }
      book.taken[cause, default: 0] += 1
      return (book.waiters.remove(at: index).continuation, counted)
    }
    waiter?.resume(returning: action)
    for waiter in counted { waiter.resume() }
  }

  /// Returns once at least `count` results have been delivered, whichever their causes.
  func waitForCount(_ count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = book.withLock { book -> Bool in
        if book.entries.count >= count { return true }
        book.countWaiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// The next result for `cause` not yet returned by `next`.
  func next(for cause: Int) async -> Action {
    await withCheckedContinuation { continuation in
      let ready = book.withLock { book -> Action? in
        let delivered = book.entries.filter { $0.cause == cause }
        let taken = book.taken[cause, default: 0]
        if delivered.count > taken {
          book.taken[cause] = taken + 1
          return delivered[taken].action
        }
        book.waiters.append((cause, continuation))
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  var all: [(cause: Int, action: Action)] { book.withLock { $0.entries } }
  func actions(for cause: Int) -> [Action] { all.filter { $0.cause == cause }.map(\.action) }
}

extension Action {
  /// The error of a `requestFailed` or `loginFailed`, else nil.
  var failure: RequestError? {
    switch self {
    case .requestFailed(let p): p.error
    case .loginFailed(let p): p.error
    default: nil
    }
  }

  /// The payload as the log would write it.
  var encodedPayload: String {
    var writer = JSONWriter()
    writePayload(to: &writer)
    return String(decoding: writer.bytes, as: UTF8.self)
  }
}
