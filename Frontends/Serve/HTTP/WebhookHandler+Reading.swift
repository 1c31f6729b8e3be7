import SusiAccess
public import SusiCore
import SusiDelivery
public import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiStore

// GET /state, /events, /events/stream (server-sent events), /healthz, /metrics.

extension WebhookHandler {
  func getState(_ caller: Caller) async throws(WebhookError) -> HTTPResponse {
    try caller.require(Privilege.stateRead)
    // Who holds which key is for those who manage keys and groups.
    return Self.stateResponse(await store.state, includesAccess: caller.seesAccess)
  }

  /// `200 application/json`: the state's canonical JSON streamed in pieces (`StateDocument`),
  /// so a large state costs a request little memory; `includesAccess` adds who holds which key.
  public static func stateResponse(_ state: State, includesAccess: Bool) -> HTTPResponse {
    let document = StateDocument(state: state, includesAccess: includesAccess)
    return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"]) { body in
      try await document.write { try await body.write($0) }
    }
  }

  func getEvents(_ request: HTTPRequest, _ caller: Caller) async throws(WebhookError)
    -> HTTPResponse
  {
    try caller.require(Privilege.eventsRead)
    let after = try Self.integerQuery(request, "after", default: 0)
    let limit = try Self.integerQuery(request, "limit", default: 100)
    guard limit >= 1 else { throw .badRequest("invalid_query", "limit must be at least 1") }
    let events: [PublishedEvent]
    do {
      events = try feed.events(after: after, limit: min(limit, options.maximumEventsPerPage))
    } catch {
      throw WebhookError(500, "log_unreadable", "\(error)")
    }
    var body: [UInt8] = []
    body.reserveCapacity(events.reduce(0) { $0 + $1.line.count + 1 })
    for event in events {
      body.append(contentsOf: event.line)
      body.append(0x0A)
    }
    return HTTPResponse(
      status: 200,
      headers: ["Content-Type": "application/x-ndjson", "X-Last-Seq": String(await store.lastSeq)],
      body: body)
  }

  /// A streamed `text/event-stream` response that runs an `EventStreamSession` until the client
  /// goes away, its key loses the privilege, or the server stops.
  func eventStream(
    _ request: HTTPRequest, _ caller: Caller, holds: @escaping @Sendable (Privilege) -> Bool
  ) throws(WebhookError) -> HTTPResponse {
    let session = try eventStreamSession(request, caller, holds: holds)
    guard let slot = streams.open(caller.keyID, limit: options.maximumStreamsPerKey) else {
      throw WebhookError(
        429, "too_many_streams",
        "this key has \(options.maximumStreamsPerKey) event streams open already; close one first",
        headers: ["Retry-After": "5"])
    }
    let headers: HTTPHeaders = [
      "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
    ]
    return HTTPResponse(status: 200, headers: headers) { body in
      try await session.run { try await body.write($0) }
      // The slot is held for as long as the stream runs.
      withExtendedLifetime(slot) {}
    }
  }

  /// The session that `GET /events/stream` runs: where it starts and what it sends.
  func eventStreamSession(
    _ request: HTTPRequest, _ caller: Caller, holds: @escaping @Sendable (Privilege) -> Bool
  ) throws(WebhookError) -> EventStreamSession {
    try caller.require(Privilege.eventsRead)
    var start: Int?
    if let lastID = request.headers["Last-Event-ID"] {
      guard let seq = Int(lastID), seq >= 0 else {
        throw .badRequest(
          "invalid_last_event_id", "Last-Event-ID must be an event seq, not '\(lastID)'")
      }
      start = seq
    } else if request.queryValue("after") != nil {
      start = try Self.integerQuery(request, "after", default: 0)
    }
    var types = Set<ActionType>()
    if let list = request.queryValue("types") {
      for name in list.split(separator: ",").map(String.init) {
        guard let type = ActionType(rawValue: name) else {
          throw .badRequest("invalid_query", "there is no event type '\(name)'")
        }
        types.insert(type)
      }
    }
    return EventStreamSession(
      feed: feed, clock: clock, after: start, types: types,
      heartbeatInterval: options.heartbeatInterval, idleLimit: options.streamIdleLimit,
      authorized: { holds(Privilege.eventsRead) })
  }

  func healthz() async -> HTTPResponse {
    let closed = feed.isClosed
    let lastSeq = await store.lastSeq
    // A log in a database must answer too; a log file has nothing to ask.
    let problem = options.logProblem?()
    return Self.json(closed || problem != nil ? 503 : 200) {
      $0.field("status", closed ? "stopping" : problem == nil ? "ok" : "log failing")
      $0.field("lastSeq", lastSeq)
      if options.logProblem != nil { $0.field("database", problem ?? "ok") }
    }
  }

  func getMetrics(_ caller: Caller) async throws(WebhookError) -> HTTPResponse {
    try caller.require(Privilege.metricsRead)
    let inFlight = await store.state.inFlight.count
    let lastSeq = await store.lastSeq
    let text =
      metrics.render(
        appended: lastSeq - startSeq, lastSeq: lastSeq, inFlight: inFlight,
        subscribers: deliveries.statuses(lastSeq: lastSeq))
      + WebhookMetrics.render(store.timings)
    return HTTPResponse(
      status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: text)
  }

  static func integerQuery(_ request: HTTPRequest, _ name: String, default value: Int)
    throws(WebhookError) -> Int
  {
    guard let text = request.queryValue(name) else { return value }
    guard let number = Int(text), number >= 0 else {
      throw .badRequest(
        "invalid_query", "\(name) must be a whole number of 0 or more, not '\(text)'")
    }
    return number
  }
}
