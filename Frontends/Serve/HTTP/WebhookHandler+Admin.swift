import SusiAccess
import SusiCore
import SusiDelivery
import SusiHTTPServer
import SusiJSON
import SusiOperatorLog
import SusiStore

// The /admin routes: groups, privileges, keys (each change an event in the log) and
// subscribers (kept in the subscribers file).

extension WebhookHandler {
  // MARK: Access

  func getAccess(_ caller: Caller) async throws(WebhookError) -> HTTPResponse {
    guard caller.seesAccess else {
      throw .forbidden("key \(caller.keyID) lacks the keys.manage and groups.manage privileges")
    }
    let access = await store.state.access
    return Self.json(200) { o in
      o.field("privileges", Privilege.all.map(\.rawValue))
      o.field("defaultGroup", AccessControl.defaultGroup)
      o.field("access") { access.write(to: &$0) }
    }
  }

  func createGroup(_ request: HTTPRequest, _ caller: Caller) async throws(WebhookError)
    -> HTTPResponse
  {
    try caller.require(Privilege.groupsManage)
    let body = try Self.objectBody(request, allowed: ["name"])
    let name = try Self.read { () throws(JSONShapeError) in try body.string("name") }
    let sent = try await applyAccessChange(
      .createAccessGroup(.init(by: caller.keyID, group: name)), request)
    return groupResponse(201, sent, name)
  }

  func grant(_ request: HTTPRequest, _ caller: Caller, group: String) async throws(WebhookError)
    -> HTTPResponse
  {
    try caller.require(Privilege.groupsManage)
    let body = try Self.objectBody(request, allowed: ["privilege"])
    let privilege = try Self.read { () throws(JSONShapeError) in try body.string("privilege") }
    let sent = try await applyAccessChange(
      .grantPrivilege(
        .init(by: caller.keyID, group: group, privilege: Privilege(rawValue: privilege))), request)
    return groupResponse(200, sent, group)
  }

  func revoke(_ request: HTTPRequest, _ caller: Caller, group: String, privilege: String)
    async throws(WebhookError) -> HTTPResponse
  {
    try caller.require(Privilege.groupsManage)
    let sent = try await applyAccessChange(
      .revokePrivilege(
        .init(by: caller.keyID, group: group, privilege: Privilege(rawValue: privilege))), request)
    return groupResponse(200, sent, group)
  }

  private func groupResponse(_ status: Int, _ sent: SentAction, _ group: String) -> HTTPResponse {
    Self.json(status) { o in
      o.field("seq", sent.published.seq)
      o.field("group", group)
      o.field("privileges", (sent.access.groups[group]?.privileges ?? []).sortedNames)
    }
  }

  // MARK: Keys

  func listKeys(_ caller: Caller) async throws(WebhookError) -> HTTPResponse {
    try caller.require(Privilege.keysManage)
    let access = await store.state.access
    return Self.json(200) { o in o.field("keys") { Self.writeKeys(access, to: &$0) } }
  }

  /// Every key (never its secret), by id: what `GET /admin/keys` and `keys list --json` show.
  static func writeKeys(_ access: AccessControl, to w: inout JSONWriter) {
    w.array(access.keys.keys.sorted()) { w, id in
      let key = access.keys[id]!
      w.object {
        $0.field("id", id)
        $0.field("groups", key.groups)
        $0.field("label", key.label)
        $0.field("issuedBy", key.issuedBy)
        $0.field("issuedAt", key.issuedAt.rfc3339)
        $0.field("revokedAt", key.revokedAt?.rfc3339)
      }
    }
  }

  /// Issues a key. Its secret is shown in this answer and never again.
  func issueKey(_ request: HTTPRequest, _ caller: Caller) async throws(WebhookError) -> HTTPResponse
  {
    try caller.require(Privilege.keysManage)
    let body = try Self.objectBody(request, allowed: ["groups", "label"])
    let (groups, label) = try Self.read { () throws(JSONShapeError) in
      (body.has("groups") ? try body.strings("groups") : [], try body.optionalString("label"))
    }
    let issued = try await administer { (access) async throws(AccessAdministration.Failure) in
      try await access.issueKey(
        groups: groups, label: label, by: caller.keyID, origin: Self.adminOrigin(request))
    }
    let key = issued.sent.access.keys[issued.token.keyID]
    return Self.json(201) { o in
      o.field("seq", issued.sent.published.seq)
      o.field("id", issued.token.keyID)
      o.field("key", issued.token.text)
      o.field("groups", key?.groups ?? [])
      o.field("label", key?.label)
    }
  }

  func revokeKey(_ request: HTTPRequest, _ caller: Caller, id: String) async throws(WebhookError)
    -> HTTPResponse
  {
    try caller.require(Privilege.keysManage)
    let sent = try await administer { (access) async throws(AccessAdministration.Failure) in
      try await access.revokeKey(id, by: caller.keyID, origin: Self.adminOrigin(request))
    }
    return Self.json(200) { o in
      o.field("seq", sent.published.seq)
      o.field("id", id)
      o.field("revoked", true)
    }
  }

  /// Appends a group change in one step on the store; the gate follows the store, so it
  /// decides by the new state once this returns.
  private func applyAccessChange(_ action: Action, _ request: HTTPRequest)
    async throws(WebhookError) -> SentAction
  {
    try await administer { (access) async throws(AccessAdministration.Failure) in
      try await access.change(action, origin: Self.adminOrigin(request))
    }
  }

  /// The origin of an administration intent: `webhook`, carried by `request`.
  private static func adminOrigin(_ request: HTTPRequest) -> EventOrigin {
    EventOrigin.webhook.carried(by: RequestLogging.id(of: request))
  }

  /// Runs a key or group change on the store, with key hashes in the gate's keys file; a
  /// refusal becomes its HTTP answer.
  private func administer<Result>(
    _ change: (AccessAdministration) async throws(AccessAdministration.Failure) -> Result
  ) async throws(WebhookError) -> Result {
    do {
      return try await change(AccessAdministration(store: store, keys: gate.keyFile))
    } catch {
      throw Self.webhookError(error)
    }
  }

  /// The HTTP form of a refused key or group change.
  private static func webhookError(_ failure: AccessAdministration.Failure) -> WebhookError {
    switch failure {
    case .access(let problem): problem.webhookError
    case .store(let failure): unavailable(failure)
    case .keyFile(let failure): WebhookError(500, "keys_file", "cannot store the key: \(failure)")
    }
  }

  // MARK: Subscribers

  func listSubscribers(_ caller: Caller) async throws(WebhookError) -> HTTPResponse {
    try caller.require(Privilege.subscribersManage)
    let deliveries = try requireDeliveries()
    let lastSeq = await store.lastSeq
    return Self.json(200) { o in
      o.field("subscribers") { w in
        w.array(deliveries.statuses(lastSeq: lastSeq)) { w, s in
          w.object {
            $0.field("id", s.id)
            $0.field("url", s.url)
            $0.field("events", s.events)
            $0.field("delivered", s.delivered)
            $0.field("backlog", s.backlog)
            $0.field("state", s.disabled == nil ? s.phase : "disabled")
            $0.field("disabled", s.disabled)
            $0.field("failures", s.failures)
            $0.field("lastError", s.lastError)
          }
        }
      }
    }
  }

  /// Registers a subscriber; a secret is generated when none is given and shown only here.
  func addSubscriber(_ request: HTTPRequest, _ caller: Caller) async throws(WebhookError)
    -> HTTPResponse
  {
    try caller.require(Privilege.subscribersManage)
    let deliveries = try requireDeliveries()
    let body = try Self.objectBody(request, allowed: ["id", "url", "events", "secret", "after"])
    var object = body.object
    let generated = object["secret"] == nil
    if generated { object["secret"] = .string(WebhookSecret.generate().text) }
    let subscriber = try Self.read { () throws(JSONShapeError) in
      try Subscriber(reading: FieldReader(object), id: Subscriber.generateID())
    }
    do {
      try await deliveries.checkTarget(subscriber.url)
    } catch {
      throw .badRequest("invalid_url", "\(error)")
    }
    do {
      try deliveries.add(subscriber, lastSeq: await store.lastSeq)
    } catch {
      throw error.webhookError
    }
    return Self.json(201) { o in
      o.field("id", subscriber.id)
      o.field("url", subscriber.url)
      o.field("events", subscriber.events.names)
      if generated { o.field("secret", subscriber.secret.text) }
    }
  }

  /// Removes or enables the subscriber `id`: `{"id":…,"<done>":true}`.
  func changeSubscriber(
    _ caller: Caller, _ id: String, _ done: StaticString,
    _ change: (DeliveryService) async throws(SubscriberRefusal) -> Void
  ) async throws(WebhookError) -> HTTPResponse {
    try caller.require(Privilege.subscribersManage)
    let deliveries = try requireDeliveries()
    do { try await change(deliveries) } catch { throw error.webhookError }
    return Self.json(200) { o in
      o.field("id", id)
      o.field(done, true)
    }
  }

  private func requireDeliveries() throws(WebhookError) -> DeliveryService {
    guard let deliveries else {
      throw WebhookError(501, "no_deliveries", "outbound deliveries are off")
    }
    return deliveries
  }

  /// Runs a body reader, turning a shape error into a 400.
  static func read<T>(_ body: () throws(JSONShapeError) -> T) throws(WebhookError) -> T {
    do {
      return try body()
    } catch {
      throw .badRequest("invalid_request", error.description)
    }
  }
}

extension SubscriberRefusal {
  var webhookError: WebhookError {
    switch kind {
    case .invalid: .badRequest("invalid_request", message)
    case .conflict: WebhookError(409, "conflict", message)
    case .notFound: .notFound(message)
    case .storage: WebhookError(500, "subscribers_file", message)
    }
  }
}
