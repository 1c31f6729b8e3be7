import SusiAccess
import SusiClock
import SusiCore
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiOperatorLog
import SusiStore

// POST /actions: one intent in, its seq out (or, with ?wait=1, the events it caused).

extension WebhookHandler {
  func postAction(_ request: HTTPRequest, _ caller: Caller) async throws(WebhookError)
    -> HTTPResponse
  {
    try Self.requireJSONBody(request)
    let decoded = try ActionRequest.decode(request.body)
    try caller.require(Privilege.forIntent(decoded.action.type))
    let clientKey = try request.headers["Idempotency-Key"].map(Self.checkIdempotencyKey)
    // Keys are scoped to the caller's key, so two callers cannot collide or see each other's.
    let scopedKey = clientKey.map { "\(caller.keyID):\($0)" }
    let wait = try Self.waitRequested(request)
    // Backpressure, decided in the same turn of the store as the append: while the runner has
    // all the work it may queue, new work is refused (a retry of an accepted request is still
    // answered from the log).
    let sent: SentAction
    do {
      let intent = CheckedIntent(
        decoded.action, origin: options.origin.carried(by: RequestLogging.id(of: request)),
        id: decoded.id, idempotencyKey: scopedKey, refusingWhenFull: true)
      // Sent with the others posted at about the same time: one turn of the store and one
      // write to the log for all of them.
      sent = try await intake.send(intent).get()
    } catch {
      switch error {
      case .store(.duplicate(let first)):
        return try await repeated(decoded, first: first, wait: wait)
      case .store(let failure): throw Self.unavailable(failure)
      case .access(let problem): throw problem.webhookError
      case .busy:
        throw WebhookError(
          429, "busy",
          "susi has \(store.inFlightLimit) requests in flight; nothing was recorded, retry in a second",
          headers: ["Retry-After": "1"])
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
      original.event.action.type != decoded.action.type
        || original.event.action.payloadJSON != decoded.action.payloadJSON
    {
      throw WebhookError(
        422, "idempotency_key_reused",
        "this Idempotency-Key was first used for a different action (event \(first)); use a new key"
      )
    }
    let headers: HTTPHeaders = ["Idempotent-Replayed": "true"]
    guard wait else { return Self.json(202, headers: headers) { $0.field("seq", first) } }
    let (events, _) = await results(of: first)
    return Self.eventsResponse(200, headers: headers, seq: first, events: events)
  }

  /// The events `seq` caused, directly or through a chain, once nothing in the chain owes a
  /// result or `waitLimit` has passed; and whether everything settled.
  func results(of seq: Int) async -> ([PublishedEvent], Bool) {
    let clock = self.clock
    let limit = options.waitLimit
    return await store.collectResults(of: seq) { try? await clock.sleep(milliseconds: limit) }
  }

  /// `{"seq":N,"events":[…]}`, the events as their exact log lines.
  static func eventsResponse(
    _ status: Int, headers: HTTPHeaders = [:], seq: Int, events: [PublishedEvent]
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
    switch request.queryValue("wait") {
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
