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
  /// One posted action, checked and ready to send.
  struct PreparedAction: Sendable {
    var decoded: ActionRequest
    var intent: CheckedIntent
    var wait: Bool
  }

  func postAction(_ request: HTTPRequest, _ caller: Caller) async throws(WebhookError)
    -> HTTPResponse
  {
    let prepared = try prepareAction(request, caller)
    // Sent with the others posted at about the same time: one turn of the store and one
    // write to the log for all of them.
    let (seq, replayed) = try sentSeq(await intake.send(prepared.intent), prepared)
    guard prepared.wait else { return Self.accepted(seq, replayed: replayed) }
    let (events, settled) = await results(of: seq)
    return Self.eventsResponse(
      replayed || settled ? 200 : 202, headers: replayed ? Self.replayedHeaders : [:], seq: seq,
      events: events)
  }

  /// `POST /actions` without `?wait`, answered without a task of its own: checked on the
  /// event loop that read it, sent with the others that loop read in the same turn (one task
  /// for all of them), answered once the store has them. Declines any other request.
  func respondToAction(_ request: HTTPRequest, with responder: HTTPResponder) -> Bool {
    guard Self.isPlainPostAction(request) else { return false }
    do throws(WebhookError) {
      let principal = try authenticate(request, needed: true)
      let prepared = try prepareAction(request, principal.caller)
      intake.submit(prepared.intent, on: responder.executor) { result in
        do throws(WebhookError) {
          let (seq, replayed) = try self.sentSeq(result, prepared)
          self.answerAction(Self.accepted(seq, replayed: replayed), with: responder)
        } catch {
          self.answerAction(error.response, with: responder)
        }
      }
    } catch {
      answerAction(error.response, with: responder)
    }
    return true
  }

  /// Counts an answer to `POST /actions` in the metrics and sends it.
  private func answerAction(_ response: HTTPResponse, with responder: HTTPResponder) {
    metrics.recordRequest(route: "/actions", status: response.status)
    responder(response)
  }

  /// Whether `request` is `POST /actions` without `?wait=1` (which waits for results in a task;
  /// a malformed `wait` gets its error from `handle(_:)`).
  static func isPlainPostAction(_ request: HTTPRequest) -> Bool {
    guard request.method == .post else { return false }
    var target = Substring(request.target)
    if let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
      target = target[..<mark]
      guard target == "/actions" else { return false }
      return (try? waitRequested(request)) == false
    }
    return target == "/actions"
  }

  /// Checks a posted action: its body, the caller's privilege for it, its `Idempotency-Key`
  /// and `?wait`; the intent to send.
  private func prepareAction(_ request: HTTPRequest, _ caller: Caller) throws(WebhookError)
    -> PreparedAction
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
    let intent = CheckedIntent(
      decoded.action, origin: options.origin.carried(by: RequestLogging.id(of: request)),
      id: decoded.id, idempotencyKey: scopedKey, refusingWhenFull: true)
    return PreparedAction(decoded: decoded, intent: intent, wait: wait)
  }

  /// The seq of the posted action's event, and whether it was recorded by an earlier request
  /// with the same `Idempotency-Key` (a retry, not appended again); or why it was not recorded.
  private func sentSeq(_ result: Result<SentAction, SendRefusal>, _ prepared: PreparedAction)
    throws(WebhookError) -> (seq: Int, replayed: Bool)
  {
    switch result {
    case .success(let sent): return (sent.published.seq, false)
    case .failure(.store(.duplicate(let first))):
      try checkRepeated(prepared.decoded, first: first)
      return (first, true)
    case .failure(.store(let failure)): throw Self.unavailable(failure)
    case .failure(.access(let problem)): throw problem.webhookError
    case .failure(.busy):
      throw WebhookError(
        429, "busy",
        "susi has \(store.inFlightLimit) requests in flight; nothing was recorded, retry in a second",
        headers: ["Retry-After": "1"])
    }
  }

  /// A retried request is answered as the first one was, without appending again; a key reused
  /// for a different action is refused.
  private func checkRepeated(_ decoded: ActionRequest, first: Int) throws(WebhookError) {
    if let original = try? feed.events(after: first - 1, limit: 1).first, original.seq == first,
      original.event.action.type != decoded.action.type
        || original.event.action.payloadJSON != decoded.action.payloadJSON
    {
      throw WebhookError(
        422, "idempotency_key_reused",
        "this Idempotency-Key was first used for a different action (event \(first)); use a new key"
      )
    }
  }

  /// The headers of the answer to a retried request.
  private static let replayedHeaders: HTTPHeaders = ["Idempotent-Replayed": "true"]

  /// `202 {"seq":N}`, marked as replayed for a retry.
  private static func accepted(_ seq: Int, replayed: Bool) -> HTTPResponse {
    json(202, headers: replayed ? replayedHeaders : [:]) { $0.field("seq", seq) }
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
