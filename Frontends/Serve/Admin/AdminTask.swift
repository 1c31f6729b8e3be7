import SusiAccess
import SusiCore
import SusiDelivery
import SusiHTTPTypes
import SusiJSON
import SusiStore

/// One admin task of `susi serve` (keys, groups, subscribers). `AdminTask.all` is every task in
/// one place: the /admin routes run them for a caller's key and answer JSON; `susi serve
/// keys|groups|subscribers …` runs them as the local operator and answers text. Either only
/// gathers a task's inputs and shows its result.
struct AdminTask: Sendable {
  /// The words after `serve` that run it (`keys issue`); nil: over HTTP only.
  var words: [String]?
  /// What follows the words, for the usage line: the words before the first `[` are required
  /// and give the first of `needs`, in order; nil: words after them are not looked at.
  var arguments: String?
  /// Its route and the status of its answer; nil: on the command line only.
  var route: (method: HTTPMethod, pattern: String, status: Int)?
  /// The privilege a caller needs over HTTP; nil: `keys.manage` or `groups.manage`.
  var privilege: Privilege?
  /// The values it reads, by name: over HTTP from the route's `{…}` segments, then from the
  /// JSON body; on the command line from the arguments, then from the options (`--name`).
  var needs: [String] = []
  /// What it does. Throws `AccessAdministration.Failure`, `SubscriberRefusal`,
  /// `JSONShapeError` or, for a subscriber's address, `TransportError`.
  var run: @Sendable (AdminScope, FieldReader) async throws -> AdminResult

  static let all: [AdminTask] = [
    AdminTask(route: (.get, "/admin/access", 200)) { scope, _ in
      .access(await scope.store.state.access)
    },
    AdminTask(words: ["keys", "init"], privilege: .keysManage, needs: ["label"]) { scope, input in
      guard await !scope.store.state.access.hasActiveAdminKey else {
        throw AccessAdministration.Failure.access(
          AccessProblem(
            .conflict,
            "an admin key exists already; issue more with 'susi serve keys issue --groups admin' or revoke it first"
          ))
      }
      let label = try input.optionalString("label") ?? "initial admin"
      return try await scope.issueKey([AccessControl.adminGroup], label)
    },
    AdminTask(words: ["keys", "list"], route: (.get, "/admin/keys", 200), privilege: .keysManage) {
      scope, _ in
      .keys(await scope.store.state.access)
    },
    AdminTask(
      words: ["keys", "issue"], route: (.post, "/admin/keys", 201), privilege: .keysManage,
      needs: ["groups", "label"]
    ) { scope, input in
      let groups = input.has("groups") ? try input.strings("groups") : []
      return try await scope.issueKey(groups, try input.optionalString("label"))
    },
    AdminTask(
      words: ["keys", "revoke"], arguments: "KEY-ID", route: (.delete, "/admin/keys/{id}", 200),
      privilege: .keysManage, needs: ["id"]
    ) { scope, input in
      let id = try input.string("id")
      let sent = try await scope.access.revokeKey(id, by: scope.by, origin: scope.origin)
      return .revokedKey(sent, id)
    },
    AdminTask(words: ["groups", "list"], privilege: .groupsManage) { scope, _ in
      .groups(await scope.store.state.access)
    },
    AdminTask(
      words: ["groups", "create"], arguments: "NAME", route: (.post, "/admin/groups", 201),
      privilege: .groupsManage, needs: ["name"]
    ) { scope, input in
      let name = try input.string("name")
      return try await scope.change(.createAccessGroup(.init(by: scope.by, group: name)), name)
    },
    AdminTask(
      words: ["groups", "grant"], arguments: "GROUP PRIVILEGE",
      route: (.post, "/admin/groups/{group}/privileges", 200), privilege: .groupsManage,
      needs: ["group", "privilege"]
    ) { try await $0.changePrivilege($1, Action.grantPrivilege) },
    AdminTask(
      words: ["groups", "revoke"], arguments: "GROUP PRIVILEGE",
      route: (.delete, "/admin/groups/{group}/privileges/{privilege}", 200),
      privilege: .groupsManage, needs: ["group", "privilege"]
    ) { try await $0.changePrivilege($1, Action.revokePrivilege) },
    AdminTask(
      words: ["subscribers", "list"], route: (.get, "/admin/subscribers", 200),
      privilege: .subscribersManage
    ) { scope, _ in .subscribers(scope.subscribers.statuses(lastSeq: await scope.store.lastSeq)) },
    AdminTask(
      words: ["subscribers", "add"],
      arguments: "URL [--events TYPE,…] [--secret whsec_…] [--id ID] [--after SEQ]",
      route: (.post, "/admin/subscribers", 201), privilege: .subscribersManage,
      needs: ["url", "events", "secret", "id", "after"]
    ) { scope, input in
      // A secret is generated when none is given, and shown only in this answer.
      var fields = input.object
      let generated = fields["secret"] == nil ? WebhookSecret.generate() : nil
      if let generated { fields["secret"] = .string(generated.text) }
      let subscriber = try Subscriber(reading: FieldReader(fields), id: Subscriber.generateID())
      try await scope.checkTarget(subscriber)
      let lastSeq = await scope.store.lastSeq
      return .added(try await scope.subscribers.register(subscriber, lastSeq: lastSeq), generated)
    },
    AdminTask(
      words: ["subscribers", "remove"], arguments: "ID",
      route: (.delete, "/admin/subscribers/{id}", 200), privilege: .subscribersManage,
      needs: ["id"]
    ) { scope, input in
      let id = try input.string("id")
      try await scope.subscribers.remove(id)
      return .subscriber(id, "removed")
    },
    AdminTask(
      route: (.post, "/admin/subscribers/{id}/enable", 200), privilege: .subscribersManage,
      needs: ["id"]
    ) { scope, input in
      let id = try input.string("id")
      try await scope.subscribers.enable(id)
      return .subscriber(id, "enabled")
    },
  ]
}

/// Who runs admin tasks, and on what.
struct AdminScope: Sendable {
  var store: Store
  /// Key and group changes, with the keys file kept in step.
  var access: AccessAdministration
  /// Subscriber changes: with the deliveries under `susi serve`, the files alone beside it.
  var subscribers: any SubscriberAdministration
  /// Refuses a subscriber that deliveries may not post to, before it is registered.
  var checkTarget: @Sendable (Subscriber) async throws -> Void
  /// The key changes are made on behalf of (`local` on the command line).
  var by: String
  var origin: EventOrigin

  /// Appends a group change; the result shows `group` as it now is.
  func change(_ action: Action, _ group: String) async throws -> AdminResult {
    .group(try await access.change(action, origin: origin), group)
  }

  /// Grants or revokes, as `change` makes it, the privilege `input` names to the group it names.
  func changePrivilege(_ input: FieldReader, _ change: (Action.PrivilegeChange) -> Action)
    async throws -> AdminResult
  {
    let group = try input.string("group")
    let privilege = Privilege(rawValue: try input.string("privilege"))
    return try await self.change(change(.init(by: by, group: group, privilege: privilege)), group)
  }

  func issueKey(_ groups: [String], _ label: String?) async throws -> AdminResult {
    .issued(try await access.issueKey(groups: groups, label: label, by: by, origin: origin))
  }
}

/// What an admin task did, for the JSON and the text renderings.
enum AdminResult: Sendable {
  /// Privileges, groups and keys (`GET /admin/access`).
  case access(AccessControl)
  case keys(AccessControl)
  case groups(AccessControl)
  /// A group as it is after a change.
  case group(SentAction, String)
  case issued(AccessAdministration.IssuedKey)
  case revokedKey(SentAction, String)
  case subscribers([SubscriberStatus])
  /// A subscriber as registered, and its secret if it was generated.
  case added(Subscriber, WebhookSecret?)
  /// A subscriber and what was done to it (`removed`, `enabled`).
  case subscriber(String, StaticString)
}
