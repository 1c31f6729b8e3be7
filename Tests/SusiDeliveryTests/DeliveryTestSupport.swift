import SusiClock
import SusiCore
import SusiDelivery
import SusiHTTPClient
import SusiStore
import SusiTesting
import Testing

/// A store on an in-memory log with the delivery service following it, on a clock moved by hand.
struct DeliveryFixture {
  let sink: MemoryEventSink
  let store: Store
  let deliveries: DeliveryService
  let clock: ManualTimeSource

  /// A new fixture. A fresh log starts with one event (a key issued by the local operator), so
  /// subscribers registered `after: 1` get what the test sends; `replaying` starts from the
  /// lines of an earlier run's log instead (a restart).
  static func make(
    replaying lines: [[UInt8]]? = nil,
    transport: @escaping @Sendable (Subscriber) -> any HTTPTransport = { _ in
      RecordingTransport()
    },
    subscribers: SubscriberFile, cursors: DeliveryCursors,
    targets: TargetPolicy = TargetPolicy(allowsPrivateTargets: true)
  ) async throws -> DeliveryFixture {
    let sink = MemoryEventSink()
    var recovered = Recovered()
    for line in lines ?? [] {
      _ = try sink.append(line)
      recovered.apply(try Event.decode(line))
    }
    let store = Store(
      sink: sink, runner: ManualRunner(), clock: ManualTimeSource(), recovered: recovered)
    if lines == nil {
      try await store.send(
        .issueKey(.init(by: "local", key: "key_0123456789abcdef", groups: ["admin"])), origin: .cli)
    }
    let clock = ManualTimeSource()
    let deliveries = DeliveryService(
      feed: store.feed, registry: subscribers, cursors: cursors, transport: transport,
      clock: clock, policy: DeliveryPolicy(jitter: 0, timeout: 60, targets: targets))
    deliveries.start()
    return DeliveryFixture(sink: sink, store: store, deliveries: deliveries, clock: clock)
  }

  /// Sends a rating the reducer refuses: two events, the rating and its `actionRejected`.
  func sendRating() async throws {
    try await store.send(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 9)), origin: .webhook)
  }

  /// The event types in the log, in order.
  var types: [String] { sink.lines.compactMap { try? Event.decode($0).action.type.rawValue } }

  /// Waits until the feed holds `count` events; after a minute it records a failure instead of
  /// waiting for ever.
  func waitForEvents(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
    let feed = store.feed
    await waitUntil("\(count) events in the feed", sourceLocation: sourceLocation) {
      feed.lastSeq >= count
    }
  }

  /// Stops the deliveries (saving cursors) and the feed.
  func shutdown(grace: Int64 = 5000) async {
    await deliveries.shutdown(grace: grace)
    store.feed.close()
  }
}

/// A subscribers file in `directory` holding subscribers `ids` that get every event after seq 1
/// (or only `events`), all signed with `secret`.
func subscribers(
  in directory: String, ids: [String] = ["hook"], events: EventFilter = [],
  secret: WebhookSecret
) throws -> SubscriberFile {
  let file = try SubscriberFile(path: directory + "/log.subscribers")
  for id in ids {
    try file.add(
      Subscriber(id: id, url: "http://127.0.0.1:9/\(id)", events: events, secret: secret, after: 1))
  }
  return file
}
