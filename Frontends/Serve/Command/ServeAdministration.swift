public import SusiAccess
import SusiCommandLine
import SusiCore
public import SusiDelivery
public import SusiHTTPClient
import SusiHTTPTypes
import SusiJSON
public import SusiStore

/// `susi serve keys …`, `susi serve groups …` and `susi serve subscribers …`: the admin tasks
/// of the HTTP API, from the command line, acting as the local operator (`local`) on the same
/// log. Access changes are appended as the same intents the API appends, checked by the same
/// rules.
public struct ServeAdministration: Sendable {
  let store: Store
  let keysAndGroups: AccessAdministration
  let subscribers: SubscriberRegistry
  /// Where subscribers may be: internal addresses are refused unless `--allow-private-targets`.
  let targets: TargetPolicy

  /// Administration of the store's access and of the subscribers in these files.
  public init(
    store: Store, keys: KeyFile, subscribers: SubscriberFile, cursors: any DeliveryCursorStore,
    targets: TargetPolicy
  ) {
    self.store = store
    self.keysAndGroups = AccessAdministration(store: store, keys: keys)
    self.subscribers = SubscriberRegistry(file: subscribers, cursors: cursors)
    self.targets = targets
  }

  /// What a command printed and how it ended.
  public struct Outcome: Sendable, Equatable {
    /// For stdout: what a script wants (a new key's secret, a listing).
    public var output: String
    /// For stderr: notes for the person.
    public var notes: String
    /// The process exit code.
    public var exitCode: Int32

    static func success(_ output: String, notes: String = "") -> Outcome {
      Outcome(output: output, notes: notes, exitCode: ExitCode.success)
    }

    static func failure(_ message: String, exitCode: Int32 = ExitCode.failure) -> Outcome {
      Outcome(output: "", notes: "susi: \(message)\n", exitCode: exitCode)
    }
  }

  /// The words after `serve` (`keys issue`, `groups grant ops search`), with the options given.
  public func run(_ words: [String], options: [String: String]) async -> Outcome {
    guard let task = Self.tasks.first(where: { words.starts(with: $0.words) }) else {
      return .failure(
        "unknown 'serve \(words.joined(separator: " "))'; see 'susi help serve' for keys, groups and subscribers",
        exitCode: ExitCode.usage)
    }
    if let arguments = task.arguments,
      words.count != 2 + arguments.split(separator: " ").prefix(while: { !$0.hasPrefix("[") }).count
    {
      let usage = (["susi serve"] + task.words + [arguments]).joined(separator: " ")
      return .failure("usage: \(usage)", exitCode: ExitCode.usage)
    }
    return await task.run(self, words, options)
  }

  /// One task: its two words, the arguments that follow them (the words before the first `[`
  /// are required; nil: words after them are not looked at) and what runs it.
  struct Task: Sendable {
    var words: [String]
    var arguments: String?
    var run: @Sendable (ServeAdministration, [String], [String: String]) async -> Outcome
  }

  /// Every task, as `susi help serve` lists them.
  static let tasks: [Task] = [
    Task(words: ["keys", "init"]) { admin, _, options in
      await admin.initialKey(label: options[.label])
    },
    Task(words: ["keys", "issue"]) { admin, _, options in
      await admin.issueKey(groups: list(options[.groups]), label: options[.label])
    },
    Task(words: ["keys", "revoke"], arguments: "KEY-ID") { admin, words, _ in
      await admin.revokeKey(words[2])
    },
    Task(words: ["keys", "list"]) { admin, _, options in
      await admin.listKeys(json: options[.json] != nil)
    },
    Task(words: ["groups", "list"]) { admin, _, options in
      await admin.listGroups(json: options[.json] != nil)
    },
    Task(words: ["groups", "create"], arguments: "NAME") { admin, words, _ in
      await admin.groupChange(words[2], .createAccessGroup(.init(by: "local", group: words[2])))
    },
    Task(words: ["groups", "grant"], arguments: "GROUP PRIVILEGE") { admin, words, _ in
      await admin.groupChange(
        words[2],
        .grantPrivilege(
          .init(by: "local", group: words[2], privilege: Privilege(rawValue: words[3]))))
    },
    Task(words: ["groups", "revoke"], arguments: "GROUP PRIVILEGE") { admin, words, _ in
      await admin.groupChange(
        words[2],
        .revokePrivilege(
          .init(by: "local", group: words[2], privilege: Privilege(rawValue: words[3]))))
    },
    Task(words: ["subscribers", "list"]) { admin, _, _ in await admin.listSubscribers() },
    Task(
      words: ["subscribers", "add"],
      arguments: "URL [--events TYPE,…] [--secret whsec_…] [--id ID] [--after SEQ]"
    ) { await $0.addSubscriber(url: $1[2], options: $2) },
    Task(words: ["subscribers", "remove"], arguments: "ID") { admin, words, _ in
      admin.removeSubscriber(words[2])
    },
  ]

  // MARK: Keys

  /// The first admin key, for bootstrapping: refused once an active admin key exists.
  func initialKey(label: String?) async -> Outcome {
    guard await !store.state.access.hasActiveAdminKey else {
      return .failure(
        "an admin key exists already; issue more with 'susi serve keys issue --groups admin' or revoke it first"
      )
    }
    return await issueKey(groups: [AccessControl.adminGroup], label: label ?? "initial admin")
  }

  func issueKey(groups: [String], label: String?) async -> Outcome {
    let issued: AccessAdministration.IssuedKey
    do {
      issued = try await keysAndGroups.issueKey(
        groups: groups, label: label, by: AccessControl.localOperator, origin: .cli)
    } catch {
      return Self.outcome(refused: error)
    }
    return .success(
      issued.token.text + "\n",
      notes:
        "Issued \(issued.token.keyID) (groups: \(issued.groups.sorted().joined(separator: ", "))). The key above is shown only once;\n"
        + "callers send it as 'Authorization: Bearer <key>'.\n")
  }

  func revokeKey(_ id: String) async -> Outcome {
    do {
      _ = try await keysAndGroups.revokeKey(id, by: AccessControl.localOperator, origin: .cli)
    } catch {
      return Self.outcome(refused: error)
    }
    return .success("", notes: "Revoked \(id).\n")
  }

  func listKeys(json: Bool = false) async -> Outcome {
    let access = await store.state.access
    if json {
      var w = JSONWriter()
      WebhookHandler.writeKeys(access, to: &w)
      return .success(String(decoding: w.bytes, as: UTF8.self) + "\n")
    }
    var out = ""
    for id in access.keys.keys.sorted() {
      let key = access.keys[id]!
      var line = "\(id)  \(key.groups.joined(separator: ","))"
      if let label = key.label { line += "  \"\(label)\"" }
      line += "  issued \(key.issuedAt.rfc3339) by \(key.issuedBy)"
      if let revoked = key.revokedAt { line += "  REVOKED \(revoked.rfc3339)" }
      out += line + "\n"
    }
    return .success(
      out,
      notes: access.keys.isEmpty
        ? "No keys yet; create the first with 'susi serve keys init'.\n" : "")
  }

  // MARK: Groups

  func listGroups(json: Bool = false) async -> Outcome {
    let access = await store.state.access
    if json {
      let groups = access.groups.keys.sorted().map { name -> (String, JSON) in
        (name, .array(access.groups[name]!.privileges.sortedNames.map { .string($0) }))
      }
      return .success(JSON.object(JSONObject(groups)).compactText + "\n")
    }
    var out = ""
    for name in access.groups.keys.sorted() {
      let privileges = access.groups[name]!.privileges.sortedNames.joined(separator: " ")
      out += "\(name): \(privileges)\n"
    }
    return .success(out)
  }

  private func groupChange(_ group: String, _ action: Action) async -> Outcome {
    let sent: SentAction
    do {
      sent = try await keysAndGroups.change(action, origin: .cli)
    } catch {
      return Self.outcome(refused: error)
    }
    let privileges = sent.access.groups[group]?.privileges.sortedNames.joined(separator: " ") ?? ""
    return .success("\(group): \(privileges)\n")
  }

  /// Why a key or group change was refused (nothing appended), and the exit code for it.
  private static func outcome(refused failure: AccessAdministration.Failure) -> Outcome {
    switch failure {
    case .access(let problem): .failure(problem.message)
    case .store(let failure): .failure("\(failure)", exitCode: ExitCode.ioError)
    case .keyFile(let failure):
      .failure("cannot store the key: \(failure)", exitCode: ExitCode.cannotCreate)
    }
  }

  // MARK: Subscribers

  func listSubscribers() async -> Outcome {
    var out = ""
    for s in subscribers.statuses(lastSeq: await store.lastSeq) {
      var line = "\(s.id)  \(s.url)  events: \(s.events.joined(separator: ","))"
      line += "  delivered: \(s.delivered)  backlog: \(s.backlog)"
      if let disabled = s.disabled { line += "  DISABLED (\(disabled))" }
      out += line + "\n"
    }
    return .success(out)
  }

  func addSubscriber(url: String, options: [String: String]) async -> Outcome {
    var secret = WebhookSecret.generate()
    if let text = options[.secret] {
      guard let given = WebhookSecret(text) else {
        return .failure(
          "--secret takes whsec_ and base64 of 24 to 64 bytes", exitCode: ExitCode.usage)
      }
      secret = given
    }
    var after: Int?
    if let text = options[.after] {
      guard let seq = Int(text), seq >= 0 else {
        return .failure("--after takes a seq", exitCode: ExitCode.usage)
      }
      after = seq
    }
    let subscriber = Subscriber(
      id: options[.id] ?? Subscriber.generateID(), url: url,
      events: EventFilter(names: Self.list(options[.events])),
      secret: secret, after: after)
    if let problem = subscriber.problem { return .failure(problem, exitCode: ExitCode.usage) }
    do {
      try await Subscriber.checkTarget(subscriber.url, targets: targets)
    } catch {
      return .failure("\(error)", exitCode: ExitCode.usage)
    }
    let added: Subscriber
    do {
      added = try subscribers.register(subscriber, lastSeq: await store.lastSeq)
    } catch {
      return outcome(refused: error)
    }
    let secretNote = options[.secret] == nil ? "Its signing secret (shown once):\n" : ""
    return .success(
      options[.secret] == nil ? secret.text + "\n" : "",
      notes:
        "Added subscriber \(added.id) for \(added.url), after event \(added.after ?? 0).\n\(secretNote)"
    )
  }

  func removeSubscriber(_ id: String) -> Outcome {
    do {
      try subscribers.remove(id)
    } catch {
      return outcome(refused: error)
    }
    return .success("", notes: "Removed subscriber \(id).\n")
  }

  /// Why a subscriber change was refused, and the exit code for it.
  private func outcome(refused refusal: SubscriberRefusal) -> Outcome {
    switch refusal.kind {
    case .invalid: .failure(refusal.message, exitCode: ExitCode.usage)
    // A clash names the subscribers file it is in.
    case .conflict: .failure("\(subscribers.file.path ?? "subscribers"): \(refusal.message)")
    case .notFound, .storage: .failure(refusal.message)
    }
  }

  /// `a,b , c` as `["a", "b", "c"]`.
  static func list(_ text: String?) -> [String] {
    guard let text else { return [] }
    return text.split(separator: ",").map { String($0).trimmingSpaces() }.filter {
      !$0.isEmpty
    }
  }
}
