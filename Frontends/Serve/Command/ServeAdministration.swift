public import SusiAccess
import SusiCommandLine
import SusiCore
public import SusiDelivery
public import SusiHTTPClient
import SusiHTTPTypes
import SusiJSON
public import SusiStore

/// `susi serve keys …`, `susi serve groups …` and `susi serve subscribers …`: the admin tasks
/// of the HTTP API (`AdminTask.all`), from the command line, acting as the local operator
/// (`local`) on the same log, and answering in text. Subscribers are changed where they are
/// kept, and no worker starts here: servers sharing them in a database take the change when
/// they read them again, and a server that owns a subscribers file keeps the command line out.
public struct ServeAdministration: Sendable {
  let scope: AdminScope
  /// The subscribers, named in a clash.
  let subscribers: SubscriberFile

  /// Administration of the store's access and of the subscribers in these files; internal
  /// addresses are refused as subscribers unless `targets` allows them.
  public init(
    store: Store, keys: KeyFile, subscribers: SubscriberFile, cursors: any DeliveryCursorStore,
    targets: TargetPolicy
  ) {
    self.subscribers = subscribers
    scope = AdminScope(
      store: store, access: AccessAdministration(store: store, keys: keys),
      subscribers: SubscriberRegistry(file: subscribers, cursors: cursors),
      checkTarget: { subscriber in
        // A malformed subscriber is refused before its address is looked up.
        if let problem = subscriber.problem {
          throw SubscriberRefusal(kind: .invalid, message: problem)
        }
        try await Subscriber.checkTarget(subscriber.url, targets: targets)
      }, by: AccessControl.localOperator, origin: .cli)
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
    guard let task = AdminTask.all.first(where: { $0.words.map(words.starts) == true }) else {
      return .failure(
        "unknown 'serve \(words.joined(separator: " "))'; see 'susi help serve' for keys, groups and subscribers",
        exitCode: ExitCode.usage)
    }
    var input = JSONObject()
    if let arguments = task.arguments {
      let required = arguments.split(separator: " ").prefix { !$0.hasPrefix("[") }.count
      guard words.count == 2 + required else {
        let usage = (["susi serve"] + (task.words ?? []) + [arguments]).joined(separator: " ")
        return .failure("usage: \(usage)", exitCode: ExitCode.usage)
      }
      for (name, word) in zip(task.needs, words.dropFirst(2)) { input[name] = .string(word) }
    }
    for name in task.needs where input[name] == nil {
      guard let text = options["--" + name] else { continue }
      switch name {
      case "groups", "events":  // `a,b , c`
        let names = text.split(separator: ",").map { String($0).trimmingSpaces() }
        input[name] = .array(names.filter { !$0.isEmpty }.map { .string($0) })
      case "after":
        guard let seq = Int(text), seq >= 0 else {
          return .failure("--after takes a seq", exitCode: ExitCode.usage)
        }
        input[name] = .int(seq)
      case "secret" where WebhookSecret(text) == nil:
        return .failure(
          "--secret takes whsec_ and base64 of 24 to 64 bytes", exitCode: ExitCode.usage)
      default: input[name] = .string(text)
      }
    }
    do {
      return Self.text(try await task.run(scope, FieldReader(input)), json: options[.json] != nil)
    } catch {
      return outcome(refused: error)
    }
  }

  /// The text answer to a task that `result` is the result of (`--json`: listings in JSON).
  static func text(_ result: AdminResult, json: Bool) -> Outcome {
    switch result {
    case .access: return .success("")  // only over HTTP
    case .keys(let access) where json:
      var w = JSONWriter()
      WebhookHandler.writeKeys(access, to: &w)
      return .success(String(decoding: w.bytes, as: UTF8.self) + "\n")
    case .keys(let access):
      let lines = access.keys.keys.sorted().map { id in
        let key = access.keys[id]!
        return "\(id)  \(key.groups.joined(separator: ","))"
          + (key.label.map { "  \"\($0)\"" } ?? "")
          + "  issued \(key.issuedAt.rfc3339) by \(key.issuedBy)"
          + (key.revokedAt.map { "  REVOKED \($0.rfc3339)" } ?? "") + "\n"
      }
      return .success(
        lines.joined(),
        notes: access.keys.isEmpty
          ? "No keys yet; create the first with 'susi serve keys init'.\n" : "")
    case .groups(let access) where json:
      let groups = access.groups.keys.sorted().map { name -> (String, JSON) in
        (name, .array(access.groups[name]!.privileges.sortedNames.map { .string($0) }))
      }
      return .success(JSON.object(JSONObject(groups)).compactText + "\n")
    case .groups(let access):
      return .success(access.groups.keys.sorted().map { Self.line(access, $0) }.joined())
    case .group(let sent, let group): return .success(Self.line(sent.access, group))
    case .issued(let issued):
      return .success(
        issued.token.text + "\n",
        notes:
          "Issued \(issued.token.keyID) (groups: \(issued.groups.sorted().joined(separator: ", "))). The key above is shown only once;\n"
          + "callers send it as 'Authorization: Bearer <key>'.\n")
    case .revokedKey(_, let id): return .success("", notes: "Revoked \(id).\n")
    case .subscribers(let statuses):
      return .success(
        statuses.map { s in
          "\(s.id)  \(s.url)  events: \(s.events.joined(separator: ","))"
            + "  delivered: \(s.delivered)  backlog: \(s.backlog)"
            + (s.disabled.map { "  DISABLED (\($0))" } ?? "") + "\n"
        }.joined())
    case .added(let added, let generated):
      return .success(
        generated.map { $0.text + "\n" } ?? "",
        notes: "Added subscriber \(added.id) for \(added.url), after event \(added.after ?? 0).\n"
          + (generated == nil ? "" : "Its signing secret (shown once):\n"))
    // Only `removed`: `enabled` is over HTTP only.
    case .subscriber(let id, _): return .success("", notes: "Removed subscriber \(id).\n")
    }
  }

  /// `group: privilege privilege …`, as `access` has it.
  static func line(_ access: AccessControl, _ group: String) -> String {
    "\(group): \((access.groups[group]?.privileges.sortedNames ?? []).joined(separator: " "))\n"
  }

  /// Why a task was refused (nothing changed), and the exit code for it.
  private func outcome(refused error: any Error) -> Outcome {
    switch error {
    case AccessAdministration.Failure.access(let problem): .failure(problem.message)
    case AccessAdministration.Failure.store(let failure):
      .failure("\(failure)", exitCode: ExitCode.ioError)
    case AccessAdministration.Failure.keyFile(let failure):
      .failure("cannot store the key: \(failure)", exitCode: ExitCode.cannotCreate)
    case let refusal as SubscriberRefusal where refusal.kind == .invalid:
      .failure(refusal.message, exitCode: ExitCode.usage)
    // A clash names the subscribers file it is in.
    case let refusal as SubscriberRefusal where refusal.kind == .conflict:
      .failure("\(subscribers.path ?? "subscribers"): \(refusal.message)")
    case let target as TransportError: .failure("\(target)", exitCode: ExitCode.usage)
    default: .failure("\(error)")
    }
  }
}
