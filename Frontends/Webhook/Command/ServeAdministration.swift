import SusiCommandLine
import SusiCore
public import SusiDelivery
public import SusiStore
public import SusiAccess

/// `susi serve keys …`, `susi serve groups …` and `susi serve subscribers …`: the admin tasks
/// of the HTTP API, from the command line, acting as the local operator (`local`) on the same
/// log. Access changes are appended as the same intents the API appends, checked by the same
/// rules.
public struct ServeAdministration: Sendable {
  let store: Store
  let keys: KeyFile
  let subscribers: SubscriberFile
  let cursors: DeliveryCursors

  /// Administration of the store's access and of the subscribers in these files.
  public init(store: Store, keys: KeyFile, subscribers: SubscriberFile, cursors: DeliveryCursors) {
    self.store = store
    self.keys = keys
    self.subscribers = subscribers
    self.cursors = cursors
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
    switch (words.first, words.dropFirst().first) {
    case ("keys", "init"): return await initialKey(label: options["--label"])
    case ("keys", "issue"):
      return await issueKey(groups: Self.list(options["--groups"]), label: options["--label"])
    case ("keys", "revoke"): return await revokeKey(words)
    case ("keys", "list"): return await listKeys()
    case ("groups", "list"): return await listGroups()
    case ("groups", "create"):
      return await groupChange(words, count: 3) {
        .createAccessGroup(.init(by: "local", group: $0[2]))
      }
    case ("groups", "grant"):
      return await groupChange(words, count: 4) {
        .grantPrivilege(.init(by: "local", group: $0[2], privilege: $0[3]))
      }
    case ("groups", "revoke"):
      return await groupChange(words, count: 4) {
        .revokePrivilege(.init(by: "local", group: $0[2], privilege: $0[3]))
      }
    case ("subscribers", "list"): return await listSubscribers()
    case ("subscribers", "add"): return await addSubscriber(words, options: options)
    case ("subscribers", "remove"): return removeSubscriber(words)
    default:
      return .failure(
        "unknown 'serve \(words.joined(separator: " "))'; see 'susi help serve' for keys, groups and subscribers",
        exitCode: ExitCode.usage)
    }
  }

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
    let token = KeyToken.generate()
    do {
      try keys.add(token)
    } catch {
      return .failure("cannot store the key: \(error)", exitCode: ExitCode.cannotCreate)
    }
    let groups = groups.isEmpty ? [AccessControl.defaultGroup] : groups
    let action = Action.issueKey(
      .init(by: AccessControl.localOperator, key: token.keyID, groups: groups, label: label))
    if let refusal = await apply(action) {
      try? keys.remove(token.keyID)
      return refusal
    }
    return .success(
      token.text + "\n",
      notes:
        "Issued \(token.keyID) (groups: \(groups.sorted().joined(separator: ", "))). The key above is shown only once;\n"
        + "callers send it as 'Authorization: Bearer <key>'.\n")
  }

  func revokeKey(_ words: [String]) async -> Outcome {
    guard words.count == 3 else {
      return .failure("usage: susi serve keys revoke KEY-ID", exitCode: ExitCode.usage)
    }
    if let refusal = await apply(.revokeKey(.init(by: AccessControl.localOperator, key: words[2])))
    {
      return refusal
    }
    try? keys.remove(words[2])
    return .success("", notes: "Revoked \(words[2]).\n")
  }

  func listKeys() async -> Outcome {
    let access = await store.state.access
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

  func listGroups() async -> Outcome {
    let access = await store.state.access
    var out = ""
    for name in access.groups.keys.sorted() {
      let privileges = access.groups[name]!.privileges.sorted().joined(separator: " ")
      out += "\(name): \(privileges)\n"
    }
    return .success(out)
  }

  private func groupChange(_ words: [String], count: Int, _ make: ([String]) -> Action) async
    -> Outcome
  {
    guard words.count == count else {
      let usage =
        count == 3
        ? "susi serve groups create NAME" : "susi serve groups \(words[1]) GROUP PRIVILEGE"
      return .failure("usage: \(usage)", exitCode: ExitCode.usage)
    }
    let action = make(words)
    if let refusal = await apply(action) { return refusal }
    let group = words[2]
    let privileges =
      await store.state.access.groups[group]?.privileges.sorted().joined(separator: " ") ?? ""
    return .success("\(group): \(privileges)\n")
  }

  /// Appends an access change if the rules allow it; otherwise says why (nothing appended).
  private func apply(_ action: Action) async -> Outcome? {
    do {
      _ = try await store.sendChecked(action, origin: .cli)
      return nil
    } catch {
      switch error {
      case .access(let problem): return .failure(problem.message)
      case .store(let failure): return .failure("\(failure)", exitCode: ExitCode.ioError)
      }
    }
  }

  // MARK: Subscribers

  func listSubscribers() async -> Outcome {
    let lastSeq = await store.lastSeq
    var out = ""
    for s in subscribers.subscribers {
      let cursor = cursors.cursor(s.id)
      let delivered = cursor?.delivered ?? s.after ?? lastSeq
      var line =
        "\(s.id)  \(s.url)  events: \(s.events.isEmpty ? "*" : s.events.sorted().joined(separator: ","))"
      line += "  delivered: \(delivered)  backlog: \(max(0, lastSeq - delivered))"
      if let disabled = cursor?.disabled { line += "  DISABLED (\(disabled))" }
      out += line + "\n"
    }
    return .success(out)
  }

  func addSubscriber(_ words: [String], options: [String: String]) async -> Outcome {
    guard words.count == 3 else {
      return .failure(
        "usage: susi serve subscribers add URL [--events TYPE,…] [--secret whsec_…] [--id ID] [--after SEQ]",
        exitCode: ExitCode.usage)
    }
    var secret = WebhookSecret.generate()
    if let text = options["--secret"] {
      guard let given = WebhookSecret(text) else {
        return .failure(
          "--secret takes whsec_ and base64 of 24 to 64 bytes", exitCode: ExitCode.usage)
      }
      secret = given
    }
    var after: Int?
    if let text = options["--after"] {
      guard let seq = Int(text), seq >= 0 else {
        return .failure("--after takes a seq", exitCode: ExitCode.usage)
      }
      after = seq
    } else {
      after = await store.lastSeq
    }
    let subscriber = Subscriber(
      id: options["--id"] ?? Subscriber.generateID(), url: words[2],
      events: Set(Self.list(options["--events"])),
      secret: secret, after: after)
    if let problem = subscriber.problem { return .failure(problem, exitCode: ExitCode.usage) }
    do {
      try cursors.remove(subscriber.id)
      try subscribers.add(subscriber)
    } catch {
      return .failure("\(error)")
    }
    let secretNote = options["--secret"] == nil ? "Its signing secret (shown once):\n" : ""
    return .success(
      options["--secret"] == nil ? secret.text + "\n" : "",
      notes:
        "Added subscriber \(subscriber.id) for \(subscriber.url), after event \(after ?? 0).\n\(secretNote)"
    )
  }

  func removeSubscriber(_ words: [String]) -> Outcome {
    guard words.count == 3 else {
      return .failure("usage: susi serve subscribers remove ID", exitCode: ExitCode.usage)
    }
    do {
      guard try subscribers.remove(words[2]) else {
        return .failure("no subscriber is called '\(words[2])'")
      }
      try cursors.remove(words[2])
    } catch {
      return .failure("\(error)")
    }
    return .success("", notes: "Removed subscriber \(words[2]).\n")
  }

  /// `a,b , c` as `["a", "b", "c"]`.
  static func list(_ text: String?) -> [String] {
    guard let text else { return [] }
    return text.split(separator: ",").map { String($0).trimmingCharacters(in: " ") }.filter {
      !$0.isEmpty
    }
  }
}
