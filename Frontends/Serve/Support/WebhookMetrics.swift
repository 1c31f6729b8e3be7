public import SusiDelivery
import SusiOperatorLog
public import SusiStore
import Synchronization

/// Counters of the webhook frontend, rendered in the Prometheus text format (version 0.0.4).
public final class WebhookMetrics: Sendable {
  struct RequestKey: Hashable {
    var route: String
    var status: Int
  }

  private let requests = Mutex<[RequestKey: Int]>([:])
  private let deliveries: DeliveryCounters

  /// Counters that show `deliveries`, the attempts of the outbound deliveries.
  public init(deliveries: DeliveryCounters = DeliveryCounters()) {
    self.deliveries = deliveries
  }

  /// Counts one answered request. `route` is the route's pattern (`/admin/keys/{id}`), never
  /// the raw path, so the number of series stays bounded.
  public func recordRequest(route: String, status: Int) {
    requests.withLock { $0[RequestKey(route: route, status: status), default: 0] += 1 }
  }

  /// How many requests were answered on `route` with `status` (for tests).
  public func requestCount(route: String, status: Int) -> Int {
    requests.withLock { $0[RequestKey(route: route, status: status)] ?? 0 }
  }

  /// The exposition text: `# HELP`/`# TYPE` lines, then samples, every line ending in `\n`.
  /// `appended` counts the events since the server started; the rest is read at the scrape.
  func render(appended: Int, lastSeq: Int, inFlight: Int, subscribers: [SubscriberStatus])
    -> String
  {
    var out = PrometheusText()
    out.family(
      "susi_http_requests_total", "counter",
      help: "HTTP requests answered, by route and status code.")
    let requestCounts = requests.withLock { $0 }
    for (key, count) in requestCounts.sorted(by: {
      ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status)
    }) {
      out.sample(
        "susi_http_requests_total", labels: ["route": key.route, "code": "\(key.status)"], count)
    }
    out.single(
      "susi_events_appended_total", "counter",
      help: "Events appended to the log since this server started.", appended)
    out.single(
      "susi_log_last_seq", "gauge", help: "The seq of the newest event in the log.", lastSeq)
    out.single(
      "susi_effects_in_flight", "gauge",
      help: "Requests the effects runner has been asked for and not yet answered.",
      inFlight)
    let subscribers = subscribers.sorted { $0.id < $1.id }
    out.family(
      "susi_webhook_delivery_backlog", "gauge",
      help:
        "Log events a subscriber has not been sent yet (or that were not yet checked against its event types)."
    )
    for s in subscribers {
      out.sample("susi_webhook_delivery_backlog", labels: ["subscriber": s.id], s.backlog)
    }
    out.family(
      "susi_webhook_subscriber_disabled", "gauge",
      help: "1 when deliveries to a subscriber have stopped (410 Gone).")
    for s in subscribers {
      out.sample(
        "susi_webhook_subscriber_disabled", labels: ["subscriber": s.id], s.disabled == nil ? 0 : 1)
    }
    out.family(
      "susi_webhook_deliveries_total", "counter",
      help: "Delivery attempts, by subscriber and outcome.")
    for (key, count) in deliveries.all.sorted(by: {
      ($0.key.subscriber, $0.key.outcome.rawValue) < ($1.key.subscriber, $1.key.outcome.rawValue)
    }) {
      out.sample(
        "susi_webhook_deliveries_total",
        labels: ["subscriber": key.subscriber, "outcome": key.outcome.rawValue], count)
    }
    return out.text
  }

  /// The log's timings: append latency and follow lag as histograms, the last lag as a gauge.
  public static func render(_ timings: LogTimings) -> String {
    var out = PrometheusText()
    for (name, help, h) in [
      (
        "susi_log_append_seconds", "Time to append one event to the log (lock, write, sync).",
        timings.appendLatency
      ),
      (
        "susi_log_follow_lag_seconds",
        "From an event's time to its application here, for events other processes or nodes appended.",
        timings.followLag
      ),
    ] {
      out.histogram(
        name, help: help, bounds: h.bounds, cumulative: h.cumulative, sum: h.sum, count: h.count)
    }
    out.single(
      "susi_log_follow_lag_last_seconds", "gauge",
      help: "The follow lag of the last event another process or node appended.",
      timings.lastFollowLag ?? 0)
    return out.text
  }
}
