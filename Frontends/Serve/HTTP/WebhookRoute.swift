import SusiHTTPTypes

/// The routes of the webhook frontend, matched from a request's path.
enum WebhookRoute: Equatable, Sendable {
  case actions
  case state
  case events
  case eventStream
  case healthz
  case metrics
  case adminAccess
  case adminGroups
  case adminGroupPrivileges(group: String)
  case adminGroupPrivilege(group: String, privilege: String)
  case adminKeys
  case adminKey(id: String)
  case adminSubscribers
  case adminSubscriber(id: String)
  case adminSubscriberEnable(id: String)

  /// The route of the busiest paths straight from the request target (no percent-decoding,
  /// no splitting); nil means "match the decoded path instead".
  init?(target: String) {
    var path = Substring(target)
    if let mark = path.utf8.firstIndex(of: UInt8(ascii: "?")) { path = path[..<mark] }
    switch path {
    case "/actions": self = .actions
    case "/events": self = .events
    case "/events/stream": self = .eventStream
    case "/state": self = .state
    default: return nil
    }
  }

  /// The route for `path`, or nil (404).
  init?(path: String) {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(
      String.init)
    switch parts {
    case ["actions"]: self = .actions
    case ["state"]: self = .state
    case ["events"]: self = .events
    case ["events", "stream"]: self = .eventStream
    case ["healthz"]: self = .healthz
    case ["metrics"]: self = .metrics
    case ["admin", "access"]: self = .adminAccess
    case ["admin", "groups"]: self = .adminGroups
    case let p
    where p.count == 4 && p[0] == "admin" && p[1] == "groups" && p[3] == "privileges"
      && !p[2].isEmpty:
      self = .adminGroupPrivileges(group: p[2])
    case let p
    where p.count == 5 && p[0] == "admin" && p[1] == "groups" && p[3] == "privileges"
      && !p[2].isEmpty
      && !p[4].isEmpty:
      self = .adminGroupPrivilege(group: p[2], privilege: p[4])
    case ["admin", "keys"]: self = .adminKeys
    case let p where p.count == 3 && p[0] == "admin" && p[1] == "keys" && !p[2].isEmpty:
      self = .adminKey(id: p[2])
    case ["admin", "subscribers"]: self = .adminSubscribers
    case let p where p.count == 3 && p[0] == "admin" && p[1] == "subscribers" && !p[2].isEmpty:
      self = .adminSubscriber(id: p[2])
    case let p
    where p.count == 4 && p[0] == "admin" && p[1] == "subscribers" && p[3] == "enable"
      && !p[2].isEmpty:
      self = .adminSubscriberEnable(id: p[2])
    default: return nil
    }
  }

  /// The route's pattern, used as the `route` label of metrics.
  var pattern: String {
    switch self {
    case .actions: "/actions"
    case .state: "/state"
    case .events: "/events"
    case .eventStream: "/events/stream"
    case .healthz: "/healthz"
    case .metrics: "/metrics"
    case .adminAccess: "/admin/access"
    case .adminGroups: "/admin/groups"
    case .adminGroupPrivileges: "/admin/groups/{group}/privileges"
    case .adminGroupPrivilege: "/admin/groups/{group}/privileges/{privilege}"
    case .adminKeys: "/admin/keys"
    case .adminKey: "/admin/keys/{id}"
    case .adminSubscribers: "/admin/subscribers"
    case .adminSubscriber: "/admin/subscribers/{id}"
    case .adminSubscriberEnable: "/admin/subscribers/{id}/enable"
    }
  }

  /// The methods the route answers.
  var methods: [HTTPMethod] {
    switch self {
    case .actions, .adminGroups, .adminGroupPrivileges, .adminSubscriberEnable: [.post]
    case .state, .events, .eventStream, .healthz, .metrics, .adminAccess: [.get]
    case .adminGroupPrivilege, .adminKey, .adminSubscriber: [.delete]
    case .adminKeys, .adminSubscribers: [.get, .post]
    }
  }
}
