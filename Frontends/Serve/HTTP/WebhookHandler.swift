public import SusiAccess
public import SusiClock
public import SusiCore
public import SusiDelivery
public import SusiHTTPServer
public import SusiHTTPTypes
public import SusiJSON
public import SusiStore

/// Answers the webhook frontend's HTTP requests: actions in, state and events out, and the
/// admin routes for keys, groups and subscribers.
///
/// Every request but `/healthz` needs a key (`Authorization: Bearer …`) whose groups grant the
/// route's privilege, or comes through `handle(_:as:holds:)` for a caller a frontend in front
/// identified itself (`susi web`'s sessions); a refused request appends nothing to the log.
public final class WebhookHandler: HTTPHandler {
  let store: Store
  let gate: AccessGate
  let deliveries: DeliveryService
  let metrics: WebhookMetrics
  let clock: any TimeSource
  let options: Options
  /// The store's last seq when the handler started (for `susi_events_appended_total`).
  let startSeq: Int
  /// Open event streams per key.
  let streams = StreamSlots()
  /// Gathers the intents posted at about the same time into one turn of the store.
  let intake: IntakeQueue

  /// Tunables of the handler.
  public struct Options: Sendable {
    /// How long `POST /actions?wait=1` waits for results, in milliseconds.
    public var waitLimit: Int64
    /// The most events one `GET /events` returns.
    public var maximumEventsPerPage: Int
    /// How often an idle event stream sends a comment, so dead clients are noticed (ms).
    public var heartbeatInterval: Int64
    /// How long an event stream may send no event before it is closed (ms).
    public var streamIdleLimit: Int64
    /// The most event streams one key may hold open at once.
    public var maximumStreamsPerKey: Int
    /// The `origin` of the intents posted to `/actions` (`webhook`; `web` under `susi web`).
    public var origin: EventOrigin
    /// For a log in a database: nil when it answers, else why not (`/healthz` reports it).
    public var logProblem: (@Sendable () -> String?)?

    /// Options; every argument has the documented default.
    public init(
      waitLimit: Int64 = 10_000, maximumEventsPerPage: Int = 1000,
      heartbeatInterval: Int64 = 15_000, streamIdleLimit: Int64 = 30 * 60_000,
      maximumStreamsPerKey: Int = 4, origin: EventOrigin = .webhook
    ) {
      self.origin = origin
      self.waitLimit = waitLimit
      self.maximumEventsPerPage = maximumEventsPerPage
      self.heartbeatInterval = heartbeatInterval
      self.streamIdleLimit = streamIdleLimit
      self.maximumStreamsPerKey = maximumStreamsPerKey
    }
  }

  /// A handler in front of `store`; usually made by `WebhookService.start`.
  public init(
    store: Store, gate: AccessGate, deliveries: DeliveryService,
    metrics: WebhookMetrics,
    clock: any TimeSource = SystemTimeSource(), options: Options = Options(), startSeq: Int = 0
  ) {
    self.store = store
    intake = IntakeQueue(store: store)
    self.gate = gate
    self.deliveries = deliveries
    self.metrics = metrics
    self.clock = clock
    self.options = options
    self.startSeq = startSeq
  }

  /// Requests served on the connections the HTTP server keeps in reserve while it is nearly
  /// full: health checks, and callers whose key manages keys (an operator who must still be
  /// able to act when other callers hold every ordinary connection).
  public func isPriority(_ request: HTTPRequest) -> Bool {
    if request.path == "/healthz" { return true }
    guard let caller = try? gate.authenticate(request.headers) else { return false }
    return caller.privileges.contains(Privilege.keysManage)
  }

  /// Answers one request; every answer is counted in the metrics by route and status.
  public func handle(_ request: HTTPRequest) async -> HTTPResponse {
    await handle(request, principal: nil)
  }

  /// Takes `POST /actions` (without `?wait`) to answer without a task of its own; declines the
  /// rest, which `handle(_:)` answers.
  public func respond(to request: HTTPRequest, with responder: HTTPResponder) -> Bool {
    respondToAction(request, with: responder)
  }

  /// Whether the request is `POST /actions` without `?wait` (see `respond(to:with:)`).
  public func respondsInline(to request: HTTPRequest) -> Bool { Self.isPlainPostAction(request) }

  /// Answers `request` for a caller its embedding frontend has already identified (a browser
  /// session of `susi web`) instead of by a key. `holds` tells whether the caller still holds a
  /// privilege; it is asked again while an event stream runs, so ending the session ends it.
  public func handle(
    _ request: HTTPRequest, as caller: Caller, holds: @escaping @Sendable (Privilege) -> Bool
  ) async -> HTTPResponse {
    await handle(request, principal: Principal(caller: caller, asking: holds))
  }

  /// Who a request is answered for, and how to ask later whether they still hold a privilege.
  struct Principal {
    var caller: Caller
    /// Asks for the caller; nil when the caller's key is asked about at the gate.
    private var asking: (@Sendable (Privilege) -> Bool)?
    private var gate: AccessGate?

    /// A caller its frontend identified, asked about by `asking`.
    init(caller: Caller, asking: @escaping @Sendable (Privilege) -> Bool) {
      self.caller = caller
      self.asking = asking
    }

    /// A caller who sent a key, asked about at `gate` (nil: nobody, who holds nothing).
    init(caller: Caller, gate: AccessGate?) {
      self.caller = caller
      self.gate = gate
    }

    /// Whether the caller still holds a privilege, asked when needed (an event stream asks
    /// while it runs). Made on demand: most requests never ask.
    var holds: @Sendable (Privilege) -> Bool {
      if let asking { return asking }
      guard let gate else { return { _ in false } }
      let keyID = caller.keyID
      return { gate.allows(keyID, $0) }
    }
  }

  private func handle(_ request: HTTPRequest, principal: Principal?) async -> HTTPResponse {
    let (routes, parameters) = WebhookRoute.matching(request)
    guard let pattern = routes.first?.pattern else {
      let response = WebhookError.notFound(
        "no route \(request.path); see the list of endpoints in the README"
      ).response
      metrics.recordRequest(route: "unmatched", status: response.status)
      return response
    }
    let response: HTTPResponse
    do {
      guard let route = routes.first(where: { $0.method == request.method }) else {
        let allowed = routes.map(\.method.text).joined(separator: ", ")
        throw WebhookError(
          405, "method_not_allowed", "\(pattern) answers \(allowed)", headers: ["Allow": allowed])
      }
      let principal = try principal ?? authenticate(request, needed: route.needsCaller)
      response = try await route.answer(
        self,
        .init(request: request, principal: principal, parameters: parameters))
    } catch {
      response = (error as? WebhookError ?? WebhookError(500, "internal", "\(error)")).response
    }
    metrics.recordRequest(route: pattern, status: response.status)
    return response
  }

  /// The caller of a request that sent its own key (nobody for a route that needs none).
  func authenticate(_ request: HTTPRequest, needed: Bool) throws(WebhookError) -> Principal {
    guard needed else {
      return Principal(caller: Caller(keyID: "", privileges: []), gate: nil)
    }
    let caller: Caller
    do {
      caller = try gate.authenticate(request.headers)
    } catch {
      throw .unauthorized(error.message)
    }
    return Principal(caller: caller, gate: gate)
  }

  // MARK: Shared pieces

  /// What the event routes read.
  var feed: EventFeed { store.feed }

  /// A JSON response.
  public static func json(
    _ status: Int, headers: HTTPHeaders = [:], _ body: (inout JSONWriter.ObjectFields) -> Void
  )
    -> HTTPResponse
  {
    var w = JSONWriter(capacity: 64)
    w.object(body)
    guard !headers.fields.isEmpty else {
      return HTTPResponse(status: status, headers: jsonHeaders, body: w.bytes)
    }
    var all = headers
    all.set("Content-Type", "application/json")
    return HTTPResponse(status: status, headers: all, body: w.bytes)
  }

  /// The headers of a JSON answer that has no others, made once.
  private static let jsonHeaders: HTTPHeaders = ["Content-Type": "application/json"]

  /// Refuses a body whose declared type is not JSON (no `Content-Type` is taken as JSON).
  public static func requireJSONBody(_ request: HTTPRequest) throws(WebhookError) {
    guard let type = request.headers["Content-Type"] else { return }
    if type == "application/json" { return }
    let media = (type.split(separator: ";", maxSplits: 1).first.map(String.init) ?? type)
      .trimmingSpaces().lowercased()
    guard
      media == "application/json" || (media.hasPrefix("application/") && media.hasSuffix("+json"))
    else {
      throw WebhookError(
        415, "unsupported_media_type", "send the body as application/json, not \(media)")
    }
  }

  /// The body as a JSON object read strictly (for the admin routes).
  static func objectBody(_ request: HTTPRequest, allowed: Set<String>) throws(WebhookError)
    -> FieldReader
  {
    try requireJSONBody(request)
    let json: JSON
    do {
      json = request.body.isEmpty ? .object(JSONObject()) : try JSONParser.parse(request.body)
    } catch {
      throw .badRequest("invalid_json", "the body is not JSON: \(error)")
    }
    guard case .object(let object) = json else {
      throw .badRequest("invalid_request", "the body must be a JSON object, not \(json.kindName)")
    }
    let reader = FieldReader(object)
    do {
      try reader.rejectUnknownKeys(allowed)
    } catch {
      throw .badRequest("invalid_request", "\(error)")
    }
    return reader
  }

  /// The store refused to record anything more.
  static func unavailable(_ error: StoreError) -> WebhookError {
    WebhookError(
      503, IntentErrorCode.logFailed.rawValue, "the event log accepts nothing more: \(error)")
  }
}

extension AccessProblem {
  /// The HTTP form of an access refusal.
  var webhookError: WebhookError {
    switch kind {
    case .unauthorized: .unauthorized(message)
    case .forbidden: .forbidden(message)
    case .notFound: .notFound(message)
    case .conflict: WebhookError(409, "conflict", message)
    case .invalid: .badRequest("invalid_request", message)
    }
  }
}
