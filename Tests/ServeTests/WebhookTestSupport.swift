import Foundation
import SusiAccess
import SusiClock
import SusiCore
import SusiCoreTesting
import SusiDelivery
import SusiHTTPClient
import SusiHTTPServer
import SusiHTTPTesting
import SusiHTTPTypes
import SusiJSON
import SusiRunner
import SusiServe
import SusiStore
import SusiTesting
import Synchronization
import Testing

// Shared pieces of the webhook tests: a clock moved by hand, a runner that answers from memory,
// a recording delivery transport, and a fixture that wires a store to the webhook handler.

/// Answers effects at once from memory: refusals become `actionRejected`, everything else
/// fails as if offline (no test here reaches a SUSI server).
final class InstantRunner: EffectsRunner {
  func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery) {
    let result: Action?
    switch effect {
    case .cancel: result = nil
    default:
      result = .requestFailed(
        .init(cause: cause, error: RequestError(kind: .network, message: "offline")))
    }
    guard let result else { return }
    Task { await deliver(result) }
  }

  func waitUntilIdle(timeout: Double) async -> Bool { true }
  func shutdown() async {}
}

/// A fresh folder for one test's files.
func temporaryDirectory() -> String {
  let path = TestScratch.root.appendingPathComponent(
    "susi-webhook-\(UUID().uuidString)"
  ).path
  try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

/// A store on an in-memory log, with the webhook handler in front of it and an admin key.
struct WebhookFixture {
  let sink: MemoryEventSink
  let store: Store
  let service: WebhookService
  let keys: KeyFile
  let directory: String
  /// An admin key, issued by the local operator.
  let adminKey: String
  let clock: ManualTimeSource

  var handler: WebhookHandler { service.handler }

  /// A new fixture; `replaying` starts from the lines of an earlier run's log (a restart).
  static func make(
    replaying lines: [[UInt8]] = [], directory: String = temporaryDirectory(),
    issueAdmin: Bool = true,
    transport: @escaping @Sendable (Subscriber) -> any HTTPTransport = { _ in
      RecordingTransport()
    },
    subscribers: SubscriberFile? = nil, cursors: DeliveryCursors? = nil, waitLimit: Int64 = 10_000,
    targets: TargetPolicy = TargetPolicy(allowsPrivateTargets: true)
  ) async throws -> WebhookFixture {
    let sink = MemoryEventSink()
    var recovered = Recovered()
    for line in lines {
      _ = try sink.append(line)
      recovered.apply(try Event.decode(line))
    }
    let store = Store(
      sink: sink, runner: InstantRunner(), clock: ManualTimeSource(ReducerTester.epoch),
      recovered: recovered)
    let keys = try KeyFile(path: directory + "/log.keys")
    var adminKey = ""
    if issueAdmin {
      let token = KeyToken.generate()
      try keys.add(token)
      try await store.send(
        .issueKey(.init(by: "local", key: token.keyID, groups: ["admin"])), origin: .cli)
      adminKey = token.text
    }
    let clock = ManualTimeSource()
    let service = await WebhookService.start(
      store: store, keys: keys, subscribers: subscribers,
      cursors: cursors,
      transport: transport, clock: clock,
      policy: DeliveryPolicy(jitter: 0, timeout: 60, targets: targets),
      options: WebhookHandler.Options(waitLimit: waitLimit))
    return WebhookFixture(
      sink: sink, store: store, service: service, keys: keys, directory: directory,
      adminKey: adminKey, clock: clock)
  }

  /// Sends a request to the handler.
  func request(
    _ method: String, _ target: String, key: String? = nil, body: String? = nil,
    headers: [(String, String)] = []
  ) async -> HTTPResponse {
    var all = HTTPHeaders(headers)
    if let key { all.add("Authorization", "Bearer \(key)") }
    if body != nil && all["Content-Type"] == nil { all.add("Content-Type", "application/json") }
    return await handler.handle(
      HTTPRequest(
        method: HTTPMethod(method), target: target, headers: all, body: Array((body ?? "").utf8)))
  }

  /// Issues a key in `groups` through the admin API and returns its token.
  func issueKey(groups: [String]) async throws -> String {
    let list = groups.map { "\"\($0)\"" }.joined(separator: ",")
    let response = await request(
      "POST", "/admin/keys", key: adminKey, body: #"{"groups":[\#(list)]}"#)
    guard response.status == 201, let token = try JSONParser.parse(response.body)["key"]?.string
    else {
      throw WebhookError(response.status, "test", String(decoding: response.body, as: UTF8.self))
    }
    return token
  }

  /// How many events the log holds.
  var eventCount: Int { sink.lines.count }

  /// Waits until the feed holds `count` events; after `hangLimitSeconds` it records a failure instead of
  /// waiting for ever.
  func waitForEvents(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
    let deadline = ContinuousClock.now + .seconds(hangLimitSeconds)
    let feed = service.feed
    var seen = feed.lastSeq
    while seen < count {
      guard ContinuousClock.now < deadline else {
        Issue.record(
          "the feed did not reach \(count) events within \(hangLimitSeconds) s",
          sourceLocation: sourceLocation)
        return
      }
      await withTaskGroup(of: Void.self) { group in
        // Waits past the seq checked above, so an event logged since is not missed.
        group.addTask { [seen] in await feed.waitForEvents(after: seen) }
        group.addTask { try? await Task.sleep(until: deadline) }
        await group.next()
        group.cancelAll()
      }
      seen = feed.lastSeq
    }
  }

  /// The event types in the log, in order.
  var types: [String] { sink.lines.compactMap { try? Event.decode($0).action.type.rawValue } }
}

extension HTTPResponse {
  /// The body parsed as JSON (null when it is not JSON).
  var json: JSON { (try? JSONParser.parse(body)) ?? .null }
  var text: String { String(decoding: body, as: UTF8.self) }
}

/// Collects what a streamed body writes, piece by piece.
final class CollectedPieces: Sendable {
  private let pieces = Mutex<[[UInt8]]>([])
  var all: [[UInt8]] { pieces.withLock { $0 } }
  var writer: HTTPBodyWriter {
    HTTPBodyWriter { piece in self.pieces.withLock { $0.append(piece) } }
  }
}

extension HTTPResponse {
  /// The body as the server hands it to the connection: the streamed writes, or the whole body
  /// as one piece.
  func pieces() async throws -> [[UInt8]] {
    guard let bodyStream else { return [body] }
    let collected = CollectedPieces()
    try await bodyStream.produce(collected.writer)
    return collected.all
  }

  /// The whole body, streamed or not, parsed as JSON.
  func collectedJSON() async throws -> JSON {
    try JSONParser.parse(try await pieces().flatMap { $0 })
  }
}
