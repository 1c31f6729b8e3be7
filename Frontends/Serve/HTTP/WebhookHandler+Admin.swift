import SusiAccess
import SusiCore
import SusiDelivery
import SusiHTTPClient
import SusiHTTPServer
import SusiJSON
import SusiOperatorLog
import SusiStore

// The /admin routes: the admin tasks (`AdminTask.all`) for a caller's key, answered in JSON.

extension WebhookHandler {
  /// Runs `task` for the caller: its inputs from the route's `{…}` segments and the JSON body.
  func administer(_ task: AdminTask, _ call: WebhookRoute.Call) async throws(WebhookError)
    -> HTTPResponse
  {
    let caller = call.caller
    if let privilege = task.privilege {
      try caller.require(privilege)
    } else if !caller.seesAccess {
      throw .forbidden("key \(caller.keyID) lacks the keys.manage and groups.manage privileges")
    }
    let pattern = task.route?.pattern ?? ""
    let inPath = pattern.split(separator: "/").filter { $0.hasPrefix("{") }.map {
      String($0.dropFirst().dropLast())
    }
    let inBody = task.needs.filter { !inPath.contains($0) }
    var input =
      inBody.isEmpty ? JSONObject() : try Self.objectBody(call.request, allowed: Set(inBody)).object
    for (name, value) in zip(inPath, call.parameters) { input[name] = .string(value) }
    let deliveries = self.deliveries
    let scope = AdminScope(
      store: store, access: AccessAdministration(store: store, keys: gate.keyFile),
      subscribers: deliveries, checkTarget: { try await deliveries.checkTarget($0.url) },
      by: caller.keyID, origin: EventOrigin.webhook.carried(by: RequestLogging.id(of: call.request))
    )
    do {
      let result = try await task.run(scope, FieldReader(input))
      return Self.json(task.route?.status ?? 200) { Self.write(result, to: &$0) }
    } catch {
      throw Self.webhookError(error)
    }
  }

  /// The JSON answer to a task that `result` is the result of.
  private static func write(_ result: AdminResult, to o: inout JSONWriter.ObjectFields) {
    switch result {
    case .access(let access):
      o.field("privileges", Privilege.all.map(\.rawValue))
      o.field("defaultGroup", AccessControl.defaultGroup)
      o.field("access") { access.write(to: &$0) }
    case .keys(let access): o.field("keys") { writeKeys(access, to: &$0) }
    case .groups: break  // only on the command line
    case .group(let sent, let group):
      o.field("seq", sent.published.seq)
      o.field("group", group)
      o.field("privileges", (sent.access.groups[group]?.privileges ?? []).sortedNames)
    case .issued(let issued):
      let key = issued.sent.access.keys[issued.token.keyID]
      o.field("seq", issued.sent.published.seq)
      o.field("id", issued.token.keyID)
      o.field("key", issued.token.text)
      o.field("groups", key?.groups ?? [])
      o.field("label", key?.label)
    case .revokedKey(let sent, let id):
      o.field("seq", sent.published.seq)
      o.field("id", id)
      o.field("revoked", true)
    case .subscribers(let statuses):
      o.field("subscribers") { w in
        w.array(statuses) { w, s in
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
    case .added(let subscriber, let generated):
      o.field("id", subscriber.id)
      o.field("url", subscriber.url)
      o.field("events", subscriber.events.names)
      if let generated { o.field("secret", generated.text) }
    case .subscriber(let id, let done):
      o.field("id", id)
      o.field(done, true)
    }
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

  /// The HTTP form of a refused admin task (nothing changed).
  private static func webhookError(_ error: any Error) -> WebhookError {
    switch error {
    case AccessAdministration.Failure.access(let problem): problem.webhookError
    case AccessAdministration.Failure.store(let failure): unavailable(failure)
    case AccessAdministration.Failure.keyFile(let failure):
      WebhookError(500, "keys_file", "cannot store the key: \(failure)")
    case let refusal as SubscriberRefusal: refusal.webhookError
    case let shape as JSONShapeError: .badRequest("invalid_request", shape.description)
    case let target as TransportError: .badRequest("invalid_url", "\(target)")
    default: WebhookError(500, "internal", "\(error)")
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
