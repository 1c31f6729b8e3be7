import Foundation
import SusiAccess
public import SusiApplication
public import SusiCommandLine
import SusiCore
import SusiDelivery
import SusiHTTPClient
public import SusiHTTPServer
import SusiOperatorLog
import SusiPostgresLog
import SusiStore

/// `susi serve`: the HTTP webhook frontend, and `susi serve keys|groups|subscribers …` to
/// administer it from the command line.
public enum ServeCommand {
  /// The command's words, options and help.
  public static let spec = CommandSpec(
    name: "serve",
    summary: "serve an HTTP API for other services (actions in, events out, signed webhooks)",
    usage:
      "serve [--port N] [--host ADDR] [--keys FILE] [--subscribers FILE] [--web] | serve keys|groups|subscribers …",
    discussion: """
      Serves POST /actions, GET /state, GET /events, GET /events/stream (server-sent events),
      GET /healthz, GET /metrics and the /admin routes on the event log, and POSTs every event
      to the registered subscribers, signed per Standard Webhooks. Prints its base URL on stdout
      once listening; Ctrl-C or SIGTERM stops it after answering the requests in progress.
      It binds 127.0.0.1 unless --host says otherwise. With --web it also serves the browser
      pages of 'susi web' under /web/, where a person signs in with a key. Every request and
      notable event is one line on stderr (--log-format json|text, --log-level); each answer
      carries its request's id in X-Request-Id.

      Callers send a key (Authorization: Bearer KEY). Keys belong to groups, groups hold
      privileges; the first admin key comes from 'susi serve keys init'. The same tasks as the
      /admin routes work from the command line, on the same log, also while the server runs
      (it takes every key and group change within a second); only the subscriber changes wait
      for it to stop (it owns the subscribers file):
        serve keys init | issue [--groups G,…] [--label L] | revoke KEY-ID | list
        serve groups list | create NAME | grant NAME PRIVILEGE | revoke NAME PRIVILEGE
        serve subscribers list | add URL [--events T,…] [--secret whsec_…] [--id ID] [--after SEQ]
                          | remove ID
      Key hashes live in LOG.keys, subscribers in LOG.subscribers (both 0600), delivery
      progress in LOG.cursors; with a log in PostgreSQL, all three are in the database (unless
      --keys or --subscribers name a file), where nodes sharing the log take turns at each
      subscriber (one node at a time).
      """,
    examples: [
      "KEY=$(susi serve keys init)",
      "susi serve --port 8080",
      "curl -H \"Authorization: Bearer $KEY\" -d '{\"type\":\"sendMessage\",\"payload\":{\"query\":\"hi\"}}' \\",
      "     -H 'Content-Type: application/json' 'http://127.0.0.1:8080/actions?wait=1'",
      "susi serve subscribers add https://example.org/hook --events messageReceived",
      "susi serve --web --port 8080          # the browser pages at http://127.0.0.1:8080/web/",
    ],
    options: [
      .port(default: 8080),
      OptionSpec(.host, value: "ADDR", help: "address to bind (default 127.0.0.1)"),
      OptionSpec(.keys, value: "FILE", help: "hashes of the keys (default: LOG.keys)"),
      OptionSpec(.web, help: "also serve the browser pages under /web/ (sign in with a key)"),
      OptionSpec(
        .subscribers, value: "FILE", help: "outbound subscribers (default: LOG.subscribers)"),
      OptionSpec(
        .groups, value: "G,…", help: "keys issue: the new key's groups (default: default)"),
      OptionSpec(.label, value: "TEXT", help: "keys issue/init: a note on the key"),
      OptionSpec(.json, help: "keys list, groups list: print them as one JSON value"),
      OptionSpec(
        .events, value: "T,…", help: "subscribers add: event types to send (default: all)"),
      OptionSpec(
        .secret, value: "whsec_…", help: "subscribers add: signing secret (default: generated)"),
      OptionSpec(.id, value: "ID", help: "subscribers add: the subscriber's id"),
      OptionSpec(
        .after, value: "SEQ", help: "subscribers add: first deliver the events after SEQ"),
    ] + ServingTLSFiles.specs + OperatorLogOptions.specs,
    arguments: 0...4)

  /// Puts another handler in front of the webhook's, for `--web`: given the running service
  /// and susi (its store, log and state folder), it answers what it serves itself and hands
  /// the rest on.
  public typealias WebMount = @Sendable (WebhookService, SusiApp) -> any HTTPHandler

  /// The command for the `susi` command table; `web` is what `--web` mounts.
  public static func command(web: WebMount? = nil) -> Command {
    Command(spec) { invocation in
      let administering = !invocation.arguments.isEmpty
      if let unused = (administering ? unusedByAdministration : unusedByServing).first(
        where: invocation.parsed.has)
      {
        let what = administering ? "serve \(invocation.arguments[0])" : "serve"
        StandardStream.error.line("susi: option '\(unused)' does not apply to 'susi \(what)'")
        return ExitCode.usage
      }
      return administering ? await administer(invocation) : await serve(invocation, web: web)
    }
  }

  /// Options the key, group and subscriber commands have no use for: they talk to no server
  /// and listen on nothing. Refused rather than silently ignored.
  static let unusedByAdministration: [OptionName] = [
    .server, .websearchURL, .allowPrivateTargets, .port, .host, .web, .caFile, .tlsCertificate,
    .tlsKey, .logLevel, .logFormat,
  ]
  /// Options only the key commands read.
  static let unusedByServing: [OptionName] = [.groups, .label, .json]

  /// Where the key hashes, the subscribers and the delivery cursors are kept: in the database
  /// when the log is in PostgreSQL (every node of a fleet shares them, and leases share the
  /// subscribers among the nodes) unless `--keys` or `--subscribers` name a file; else in the
  /// files beside the log (and no leases: this one server delivers every subscriber).
  struct Storage {
    var keys: KeyFile
    var subscribers: SubscriberFile
    var cursors: any DeliveryCursorStore
    var leases: (any DeliveryLeases)?

    init(_ app: SusiApp, _ invocation: Invocation) throws {
      // Beside the log file; for a log in PostgreSQL, in this node's state folder.
      let log = SusiApp.besideLog(invocation.common)
      let (parsed, database) = (invocation.parsed, app.databaseLog)
      keys =
        if let database, !parsed.has(.keys) {
          try KeyFile(storage: PostgresKeyHashes(location: database.location))
        } else { try KeyFile(path: parsed.value(.keys) ?? log + ".keys") }
      subscribers =
        if let database, !parsed.has(.subscribers) {
          try SubscriberFile(storage: PostgresSubscribers(location: database.location))
        } else { try SubscriberFile(path: parsed.value(.subscribers) ?? log + ".subscribers") }
      guard let database else {
        (cursors, leases) = (try DeliveryCursors(path: log + ".cursors"), nil)
        return
      }
      // A node without a node number (one not serving) only reads and edits cursors; a number
      // far above the ones live nodes take keeps it apart from them.
      let shared = try PostgresDeliveryLeases(
        location: database.location, node: database.node ?? Int.random(in: 1 << 40..<1 << 50))
      (cursors, leases) = (shared, shared)
    }
  }

  static func serve(_ invocation: Invocation, web: WebMount?) async -> Int32 {
    let host = BindAddress.numeric(invocation.parsed.value(.host) ?? "127.0.0.1")
    guard
      let listening = ListeningOptions.resolve(invocation, component: "serve", defaultPort: 8080)
    else { return ExitCode.usage }
    let log = listening.log
    if invocation.parsed.has(.web) && web == nil {
      return fail("this build of susi has no browser pages for --web", ExitCode.usage)
    }
    let ownership: ServeOwnership
    do {
      ownership = try ServeOwnership(
        log: SusiApp.besideLog(invocation.common),
        held: "another 'susi serve' is running on \(invocation.common.log); one server per log "
          + "delivers the webhooks and owns the subscribers")
    } catch {
      return fail(error.message, ExitCode.cannotCreate)
    }
    defer { withExtendedLifetime(ownership) {} }
    let app: SusiApp
    do {
      app = try await SusiApp.start(invocation.common, origin: .webhook)
    } catch {
      return fail(error.message, error.exitCode)
    }
    for warning in app.warnings { log.warning(warning) }
    let service: WebhookService
    do {
      let storage = try Storage(app, invocation)
      // One transport (one event loop, one pool per origin) for every subscriber.
      let transport = SocketTransport(
        caFile: app.caFile, proxies: ProxySettings(environment: ProcessInfo.processInfo.environment)
      )
      var options = WebhookHandler.Options()
      if app.databaseLog != nil { options.logProblem = { app.logProblem() } }
      service = await WebhookService.start(
        store: app.store, keys: storage.keys, subscribers: storage.subscribers,
        cursors: storage.cursors, leases: storage.leases,
        transport: { _ in transport },
        policy: DeliveryPolicy(
          targets: TargetPolicy(allowsPrivateTargets: invocation.common.allowsPrivateTargets)),
        options: options)
    } catch {
      await app.stop()
      return fail("\(error)", ExitCode.cannotCreate)
    }
    service.deliveries.warnings.send { log.warning($0) }
    app.backgroundWarnings.send { log.warning($0) }
    if !service.gate.access.hasActiveAdminKey {
      log.warning("no admin key yet; run 'susi serve keys init' to create one")
    }
    let handler: any HTTPHandler =
      if let web, invocation.parsed.has(.web) { web(service, app) } else { service.handler }
    return await service.serveUntilSignalled(
      handler, host: host, listening, app: app)
  }

  /// The command-line tasks that rewrite a file a running `susi serve` owns (the subscribers
  /// file). Key changes are not among them: the keys file is changed under its own lock and a
  /// running server reads it again when the log says a key was issued or revoked.
  static let fileChanges: Set<[String]> = [["subscribers", "add"], ["subscribers", "remove"]]

  static func administer(_ invocation: Invocation) async -> Int32 {
    var ownership: ServeOwnership?
    defer { withExtendedLifetime(ownership) {} }
    // Subscribers in the database are shared: running nodes read them again (see
    // `DeliveryService`), so the command line may change them while they run.
    if fileChanges.contains(Array(invocation.arguments.prefix(2)))
      && !(PostgresLogLocation.isLocation(invocation.common.log)
        && !invocation.parsed.has(.subscribers))
    {
      do {
        ownership = try ServeOwnership(
          log: SusiApp.besideLog(invocation.common),
          held: "'susi serve' is running on \(invocation.common.log) and owns its subscribers "
            + "file; make this change through its /admin API, or stop it first")
      } catch {
        return fail(error.message, ExitCode.cannotCreate)
      }
    }
    let app: SusiApp
    do {
      app = try await SusiApp.start(invocation.common, origin: .cli, startEmbedded: false)
    } catch {
      return fail(error.message, error.exitCode)
    }
    for warning in app.warnings { StandardStream.error.line("susi serve: warning: \(warning)") }
    let outcome: ServeAdministration.Outcome
    do {
      let storage = try Storage(app, invocation)
      let administration = ServeAdministration(
        store: app.store, keys: storage.keys, subscribers: storage.subscribers,
        cursors: storage.cursors,
        targets: TargetPolicy(allowsPrivateTargets: invocation.common.allowsPrivateTargets))
      outcome = await administration.run(invocation.arguments, options: invocation.parsed.options)
    } catch {
      await app.stop()
      return fail("\(error)", ExitCode.cannotCreate)
    }
    await app.stop()
    StandardStream.output.write(outcome.output)
    StandardStream.error.write(outcome.notes)
    return outcome.exitCode
  }

  private static func fail(_ message: String, _ code: Int32) -> Int32 {
    StandardStream.error.line("susi serve: \(message)")
    return code
  }
}
