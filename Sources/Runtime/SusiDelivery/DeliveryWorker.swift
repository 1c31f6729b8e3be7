import SusiClock
import SusiCore
import SusiHTTPClient
import SusiHTTPTypes
import SusiStore
import Synchronization

/// Delivers the log to one subscriber: each matching event in order, retried until the
/// subscriber takes it, with the cursor saved as it goes.
///
/// Each subscriber has its own worker and task reading the log at its own pace, so a slow or
/// dead subscriber delays nobody else.
final class DeliveryWorker: Sendable {
  let subscriber: Subscriber
  private let feed: EventFeed
  private let transport: any HTTPTransport
  private let clock: any TimeSource
  private let cursors: any DeliveryCursorStore
  private let counters: DeliveryCounters
  private let policy: DeliveryPolicy
  private let random: @Sendable () -> Double
  private let status: Mutex<Status>

  /// What the worker is doing, for listings and metrics.
  struct Status: Sendable {
    enum Phase: String, Sendable {
      case starting, idle, delivering, backingOff, disabled, stopped
    }
    var phase: Phase = .starting
    var cursor: Int
    var failures = 0
    var lastError: String?
    var draining = false
  }

  /// How delivering one event ended.
  enum Outcome {
    case delivered, disabled, stopped
  }

  init(
    subscriber: Subscriber, feed: EventFeed, transport: any HTTPTransport,
    clock: any TimeSource,
    cursors: any DeliveryCursorStore, counters: DeliveryCounters, policy: DeliveryPolicy,
    random: @escaping @Sendable () -> Double
  ) {
    self.subscriber = subscriber
    self.feed = feed
    self.transport = transport
    self.clock = clock
    self.cursors = cursors
    self.counters = counters
    self.policy = policy
    self.random = random
    let start = cursors.cursor(subscriber.id)?.delivered ?? subscriber.after ?? feed.lastSeq
    status = Mutex(Status(cursor: start))
  }

  var snapshot: Status { status.withLock { $0 } }

  /// Asks the worker to stop once it has nothing it can deliver right now. Returns true when it
  /// is waiting (for events or for a retry) and should be cancelled to stop at once.
  func beginDrain() -> Bool {
    status.withLock { s in
      s.draining = true
      return s.phase != .delivering
    }
  }

  /// Moves to `phase` unless the worker is draining; false means stop.
  private func enter(_ phase: Status.Phase) -> Bool {
    status.withLock { s in
      if s.draining || Task.isCancelled { return false }
      s.phase = phase
      return true
    }
  }

  /// Delivers until cancelled, drained or disabled.
  func run() async {
    var cursor = status.withLock { $0.cursor }
    if cursors.cursor(subscriber.id) == nil { saveCursor(cursor) }
    if cursors.cursor(subscriber.id)?.disabled != nil {
      status.withLock { $0.phase = .disabled }
      return
    }
    var saved = cursor
    var savedAt = clock.unixSeconds
    defer {
      if saved != cursor { saveCursor(cursor) }
      status.withLock { if $0.phase != .disabled { $0.phase = .stopped } }
    }
    var events = feed.follow(after: cursor).makeAsyncIterator()
    while !Task.isCancelled {
      let batch: [PublishedEvent]
      do {
        guard let ready = try await events.nextBatch(limit: policy.batchSize, waiting: .no)
        else { return }
        if ready.isEmpty {
          if saved != cursor {
            saveCursor(cursor)
            saved = cursor
            savedAt = clock.unixSeconds
          }
          guard enter(.idle),
            let next = try await events.nextBatch(limit: policy.batchSize)
          else { return }
          batch = next
        } else {
          batch = ready
        }
      } catch {
        status.withLock { $0.lastError = "cannot read the log: \(error)" }
        guard enter(.backingOff) else { return }
        do { try await clock.sleep(milliseconds: 1000) } catch { return }
        continue
      }
      for event in batch {
        if subscriber.wants(event.event.action.type) {
          switch await deliver(event) {
          case .delivered: break
          case .disabled: return
          case .stopped: return
          }
        }
        cursor = event.seq
        status.withLock { $0.cursor = cursor }
        let now = clock.unixSeconds
        if cursor - saved >= policy.cursorSaveInterval || now != savedAt {
          saveCursor(cursor)
          saved = cursor
          savedAt = now
        }
      }
    }
  }

  /// Sends one event until the subscriber takes it (2xx), says it is gone (410), or the
  /// worker is stopped.
  func deliver(_ event: PublishedEvent) async -> Outcome {
    var failures = 0
    while true {
      let isDraining = status.withLock { s in
        s.phase = .delivering
        return s.draining
      }
      if Task.isCancelled || (isDraining && failures > 0) { return .stopped }
      let request = signedRequest(for: event)
      var retryAfter: Int64?
      do {
        let response = try await transport.send(request)
        switch response.status {
        case 200..<300:
          counters.record(subscriber.id, .delivered)
          status.withLock {
            $0.failures = 0
            $0.lastError = nil
          }
          return .delivered
        case 410:
          counters.record(subscriber.id, .gone)
          disable(reason: "410 Gone")
          return .disabled
        default:
          counters.record(subscriber.id, .failed)
          if response.status == 429 || response.status == 503 {
            retryAfter = response.headers["Retry-After"].flatMap { Int64($0) }.map { $0 * 1000 }
          }
          note(failure: "HTTP \(response.status)")
        }
      } catch {
        if Task.isCancelled { return .stopped }
        counters.record(subscriber.id, .failed)
        note(failure: "\(error)")
      }
      failures += 1
      guard enter(.backingOff) else { return .stopped }
      let wait = policy.delay(afterFailures: failures, retryAfter: retryAfter, random: random())
      do {
        try await clock.sleep(milliseconds: wait)
      } catch {
        return .stopped
      }
    }
  }

  /// The POST for `event`, signed for this attempt.
  func signedRequest(for event: PublishedEvent) -> TransportRequest {
    let id = "evt_\(event.seq)"
    let timestamp = clock.unixSeconds
    var headers = HTTPHeaders()
    headers.add("Content-Type", "application/json")
    headers.add("User-Agent", "susi-webhook")
    headers.add("webhook-id", id)
    headers.add("webhook-timestamp", String(timestamp))
    headers.add(
      "webhook-signature",
      WebhookSignature.sign(
        id: id, timestamp: timestamp, body: event.line, secret: subscriber.secret))
    // Redirects are answers (failures), never followed; the reply's body is not needed.
    return TransportRequest(
      method: .post, url: subscriber.url, headers: headers, body: event.line,
      idleTimeout: policy.timeout,
      totalTimeout: policy.timeout, followsRedirects: false, maximumBodyBytes: 16 << 10,
      truncatesLongBodies: true, targetPolicy: policy.targets)
  }

  private func note(failure: String) {
    status.withLock {
      $0.failures += 1
      $0.lastError = failure
    }
  }

  private func disable(reason: String) {
    do {
      try cursors.disable(subscriber.id, reason: reason, at: clock.unixSeconds)
    } catch {
      status.withLock { $0.lastError = "cannot save that the subscriber is disabled: \(error)" }
    }
    status.withLock {
      $0.phase = .disabled
      $0.lastError = reason
    }
  }

  private func saveCursor(_ seq: Int) {
    do {
      try cursors.save(subscriber.id, delivered: seq)
    } catch {
      status.withLock { $0.lastError = "cannot save the cursor: \(error)" }
    }
  }
}

extension TimeSource {
  /// Whole seconds since 1970 (what `webhook-timestamp` carries).
  var unixSeconds: Int64 { millisecondsSince1970() / 1000 }
}
