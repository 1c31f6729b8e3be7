import SusiCore
import SusiHTTP
import SusiJSON
import SusiStore

// POST /actions: one intent in, its seq out (or, with ?wait=1, the events it caused).

extension WebhookHandler {
  func postAction(_ request: HTTPRequest, _ caller: Caller) async throws(WebhookError)
    -> HTTPResponse
  {
    try Self.requireJSONBody(request)
    let decoded = try ActionRequest.decode(request.body)
    try caller.require(Privilege.forIntent(decoded.action.typeName))
    let clientKey = try request.headers["Idempotency-Key"].map(Self.checkIdempotencyKey)
    // Keys are scoped to the caller's key, so two callers cannot collide or see each other's.
    let scopedKey = clientKey.map { "\(caller.keyID):\($0)" }
    let wait = try Self.waitRequested(request)
    let sent: SentAction
    do {
      sent = try await store.sendChecked(
        decoded.action, origin: "webhook", id: decoded.id, idempotencyKey: scopedKey)
    } catch {
      switch error {
      case .store(.duplicate(let first)):
        return try await repeated(decoded, first: first, wait: wait)
      case .store(let failure): throw Self.unavailable(failure)
      case .access(let problem): throw problem.webhookError
      }
    }
    let seq = sent.published.seq
    guard wait else { return Self.json(202) { $0.field("seq", seq) } }
    let (events, settled) = await results(of: seq)
    return Self.eventsResponse(settled ? 200 : 202, seq: seq, events: events)
  }

  /// The answer to a retried request: the first one's, without appending again. A key reused
  /// for a different action is refused.
  private func repeated(_ decoded: ActionRequest, first: Int, wait: Bool) async throws(WebhookError)
    -> HTTPResponse
  {
    if let original = try? feed.events(after: first - 1, limit: 1).first, original.seq == first,
      let event = try? Event.decode(original.line),
      event.action.typeName != decoded.action.typeName
        || event.action.payloadJSON != decoded.action.payloadJSON
    {
      throw WebhookError(
        422, "idempotency_key_reused",
        "this Idempotency-Key was first used for a different action (event \(first)); use a new key"
      )
    }
    let headers: HTTPHeaders = ["Idempotent-Replayed": "true"]
    guard wait else { return Self.json(202, headers: headers) { $0.field("seq", first) } }
    let events = (try? causedEvents(of: first)) ?? []
    return Self.eventsResponse(200, headers: headers, seq: first, events: events)
  }

  /// Events that `seq` caused, directly or through a chain, among the 1000 that follow it.
  private func causedEvents(of seq: Int) throws(HistoryError) -> [FeedEvent] {
    var chain: Set<Int> = [seq]
    var out: [FeedEvent] = []
    for event in try feed.events(after: seq, limit: 1000) {
      if let cause = event.cause, chain.contains(cause) {
        out.append(event)
        chain.insert(event.seq)
      }
    }
    return out
  }

  /// Waits (at most `waitLimit`) until nothing `seq` caused, directly or through a chain,
  /// still owes a result; returns the events caused so far and whether everything settled.
  func results(of seq: Int) async -> ([FeedEvent], Bool) {
    let feed = self.feed
    let store = self.store
    let clock = self.clock
    let limit = options.waitLimit
    return await withTaskGroup(of: ([FeedEvent], Bool)?.self) { group in
      group.addTask { await Self.collect(feed, store, seq: seq) }
      group.addTask {
        try? await clock.sleep(milliseconds: limit)
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      if let first { return first }
      // Time is up: the collector stops and reports what it has.
      while let next = await group.next() { if let next { return next } }
      return ([], false)
    }
  }

  /// Follows the feed from `seq`, collecting what it causes, until the store owes no result
  /// to any of them and every result logged has been read, or until the task is cancelled.
  private static func collect(_ feed: EventFeed, _ store: Store, seq: Int) async -> (
    [FeedEvent], Bool
  ) {
    var cursor = seq
    var chain: Set<Int> = [seq]
    var out: [FeedEvent] = []
    while !Task.isCancelled {
      let checked = chain
      let (pending, loggedUpTo) = await store.settlement(of: checked)
      // Read everything logged up to the check, so no result that settled it is missed.
      while cursor < loggedUpTo && !Task.isCancelled {
        guard let batch = try? feed.events(after: cursor, limit: 256) else { return (out, false) }
        if batch.isEmpty {
          if feed.isClosed { return (out, false) }
          await feed.waitForEvents(after: cursor)
          continue
        }
        for event in batch {
          cursor = event.seq
          guard let cause = event.cause, chain.contains(cause) else { continue }
          out.append(event)
          chain.insert(event.seq)
        }
      }
      if !pending && chain == checked { return (out, true) }
      if pending && chain == checked {
        if feed.isClosed { return (out, false) }
        await feed.waitForEvents(after: cursor)
      }
    }
    return (out, false)
  }

  /// `{"seq":N,"events":[…]}`, the events as their exact log lines.
  static func eventsResponse(
    _ status: Int, headers: HTTPHeaders = [:], seq: Int, events: [FeedEvent]
  ) -> HTTPResponse {
    var w = JSONWriter(capacity: 64 + events.reduce(0) { $0 + $1.line.count + 1 })
    w.raw("{\"seq\":")
    w.int(seq)
    w.raw(",\"events\":[")
    for (i, event) in events.enumerated() {
      if i > 0 { w.byte(UInt8(ascii: ",")) }
      w.bytes.append(contentsOf: event.line)
    }
    w.raw("]}")
    var all = headers
    all.set("Content-Type", "application/json")
    return HTTPResponse(status: status, headers: all, body: w.bytes)
  }

  static func waitRequested(_ request: HTTPRequest) throws(WebhookError) -> Bool {
    switch query(request, "wait") {
    case nil, "0", "false": return false
    case "1", "true": return true
    case let other?: throw .badRequest("invalid_query", "wait takes 1 or 0, not '\(other)'")
    }
  }

  /// An `Idempotency-Key` is 1 to 255 visible ASCII characters.
  static func checkIdempotencyKey(_ value: String) throws(WebhookError) -> String {
    let bytes = value.utf8
    guard (1...255).contains(bytes.count), bytes.allSatisfy({ (0x21...0x7e).contains($0) }) else {
      throw .badRequest(
        "invalid_idempotency_key",
        "an Idempotency-Key is 1 to 255 visible ASCII characters without spaces")
    }
    return value
  }
}
