public import SusiAccess
public import SusiClock
import SusiCore
public import SusiDelivery
public import SusiHTTPClient
public import SusiStore

/// The webhook frontend around one store: the event feed that follows the log, the access gate,
/// the outbound deliveries and the HTTP handler. Serve `handler` with an HTTP server.
///
/// ```swift
/// let service = await WebhookService.start(store: store,
///                                          keys: try KeyFile(path: log + ".keys"))
/// let server = HTTPServer(configuration: configuration, handler: service.handler)
/// ```
public struct WebhookService: Sendable {
  /// The HTTP handler to serve.
  public let handler: WebhookHandler
  /// The events of the log, for readers.
  public let feed: EventFeed
  /// Checks callers' keys and privileges.
  public let gate: AccessGate
  /// The outbound subscribers' workers.
  public let deliveries: DeliveryService
  /// The counters `/metrics` shows.
  public let metrics: WebhookMetrics

  /// Wires the frontend to `store` and starts following its log and delivering to the
  /// registered subscribers.
  ///
  /// - Parameters:
  ///   - keys: the hashes of the keys' secrets.
  ///   - subscribers: the outbound subscribers (their file, or in memory).
  ///   - cursors: how far each subscriber has got.
  ///   - leases: on a fleet, which node delivers each subscriber (see `DeliveryLeases`).
  public static func start(
    store: Store, keys: KeyFile,
    subscribers: SubscriberFile? = nil, cursors: (any DeliveryCursorStore)? = nil,
    leases: (any DeliveryLeases)? = nil,
    transport: @escaping @Sendable (Subscriber) -> any HTTPTransport = { _ in
      SocketTransport()
    },
    clock: any TimeSource = SystemTimeSource(), policy: DeliveryPolicy = DeliveryPolicy(),
    options: WebhookHandler.Options = WebhookHandler.Options()
  ) async -> WebhookService {
    let startSeq = await store.lastSeq
    let feed = store.feed
    let gate = await AccessGate.following(store, keys: keys)
    let counters = DeliveryCounters()
    let metrics = WebhookMetrics(deliveries: counters)
    let deliveries = DeliveryService(
      feed: feed, registry: subscribers ?? SubscriberFile(memory: []),
      cursors: cursors ?? DeliveryCursors(), leases: leases, transport: transport, clock: clock,
      counters: counters, policy: policy)
    deliveries.start()
    let handler = WebhookHandler(
      store: store, gate: gate, deliveries: deliveries, metrics: metrics, clock: clock,
      options: options, startSeq: startSeq)
    return WebhookService(
      handler: handler, feed: feed, gate: gate, deliveries: deliveries, metrics: metrics)
  }

  /// Stops deliveries (letting them drain for up to `grace` ms and saving cursors) and ends
  /// every event stream. Stop the HTTP server first, so no request is cut short; close the
  /// store afterwards.
  public func shutdown(grace: Int64 = 5000) async {
    await deliveries.shutdown(grace: grace)
    feed.close()
  }
}
