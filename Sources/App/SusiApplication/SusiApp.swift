public import Foundation
public import SusiClock
public import SusiCommandLine
public import SusiCore
import SusiEventLog
import SusiHTTPClient
public import SusiJSON
import SusiPostgres
public import SusiPostgresLog
import SusiRunner
public import SusiServer
public import SusiStore
import Synchronization

/// A running susi: the log opened and replayed, the runner, the store, and the built-in server
/// when no other server is configured. Every frontend starts one of these and talks only to
/// `store`.
public final class SusiApp: Sendable {
  public let store: Store
  public let options: CommonOptions
  /// The built-in server, when it is the one in use.
  public let embedded: EmbeddedServer?
  /// The built-in server's address (`http://127.0.0.1:PORT`), when it runs.
  public var embeddedServerURL: String? { embedded?.baseURLString }
  /// What start-up noticed and the user should hear about (a torn log tail that was cut, …).
  public let warnings: [String]
  /// How many events the log held before this run.
  public let resumedEvents: Int
  /// Whether no other susi process was using the log when this one opened it.
  public let startedAlone: Bool
  /// What start-up itself logged: requests of a previous run closed as `interrupted`, and the
  /// switch to the server the options ask for. Frontends that print every event print these.
  public var startupEvents: [PublishedEvent] { startup.withLock { $0 } }
  private let startup = Mutex<[PublishedEvent]>([])
  /// Answers a previous run had planned and not delivered: rescheduled, delivered late or
  /// dropped at start (`Store.resumePlannedAnswers`); frontends tell the person.
  public var resumedPlans: [ResumedPlan] { plans.withLock { $0 } }
  private let plans = Mutex<[ResumedPlan]>([])
  /// With a log in PostgreSQL: what wakes the store when other nodes append.
  private let follower = Mutex<PostgresFollower?>(nil)
  /// Follows this process's server switches into the remembered choice (see
  /// `rememberServerSwitches`); finished before the store closes.
  private let serverSwitches = Mutex<EventForwarding?>(nil)
  /// With a log in PostgreSQL: the sink, whose connection `/healthz` checks.
  public let databaseLog: PostgresEventSink?
  /// What goes wrong in the background (a sweep for dead nodes' requests that fails), for the
  /// operators' log: `susi serve` sends them there.
  public let backgroundWarnings = BackgroundWarnings()
  /// The CA file trusted for https besides the system's (`--ca-file`, the remembered one, or the
  /// config's), for every request this process makes.
  public let caFile: String?

  private init(
    store: Store, options: CommonOptions, embedded: EmbeddedServer?, warnings: [String],
    resumedEvents: Int, startedAlone: Bool, databaseLog: PostgresEventSink?, caFile: String?
  ) {
    self.caFile = caFile
    self.startedAlone = startedAlone
    self.databaseLog = databaseLog
    self.store = store
    self.options = options
    self.embedded = embedded
    self.warnings = warnings
    self.resumedEvents = resumedEvents
  }

  /// Opens the log shared with other susi processes (cutting a torn tail), rebuilds the state
  /// from it, follows what the others append, starts the built-in server if needed, and makes
  /// the state's server the one `--server` asks for (without it, the one chosen last).
  ///
  /// - Parameters:
  ///   - origin: the `origin` of events this start-up sends (`cli`, `jsonl`, `webhook`).
  ///   - startEmbedded: set false for tools that never talk to a server.
  ///   - embeddedWithServer: start the built-in server even with `--server`, for frontends
  ///     that can switch to it later (`/server embedded`): the runner learns its address only
  ///     here, at start.
  ///   - followInterval: how often the log is looked at for what other susi processes appended
  ///     when nothing reported it (inotify reports appends at once where the filesystem can).
  public static func start(
    _ options: CommonOptions, origin: EventOrigin,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    clock: (any TimeSource)? = nil, startEmbedded: Bool = true, embeddedWithServer: Bool = false,
    followInterval: Duration = defaultFollowInterval
  ) async throws(StartupError) -> SusiApp {
    var options = options
    var warnings: [String] = []
    try makeDirectory(options.stateDirectory)
    let opened: OpenedLog
    if PostgresLogLocation.isLocation(options.log) {
      // The log in PostgreSQL, shared by every node on it.
      opened = try openDatabaseLog(options, environment: environment)
    } else {
      try makeDirectory((options.log as NSString).deletingLastPathComponent)
      // The log: newest matching snapshot, then the tail (LogRecovery, in SusiStore).
      do {
        let file = try LogRecovery.open(
          path: options.log, fsync: EventLogFsyncPolicy(rawValue: options.fsync) ?? .batch,
          environment: environment, shared: true)
        opened = OpenedLog(
          sink: FileEventSink(writer: file.writer), recovered: file.recovered,
          warnings: file.warnings, snapshots: file.snapshots, alone: file.alone, database: nil)
      } catch {
        throw StartupError(opened: error, log: options.log)
      }
    }
    let sink = opened.sink
    let recovered = opened.recovered
    warnings += opened.warnings
    if startEmbedded {
      options = serverForRun(options, logServer: recovered.state.server, alone: opened.alone)
    }

    // The CA file trusted for https: the runner's requests and the built-in server's console
    // fetches alike.
    let caFile: String?
    do throws(StartupError) {
      caFile = try RememberedCAFile.resolve(
        given: options.caFile, server: options.server ?? State.embeddedServer,
        stateDirectory: options.stateDirectory)
    } catch {
      sink.close()
      throw error
    }
    var embedded: EmbeddedServer?
    if startEmbedded && (options.server == nil || embeddedWithServer) {
      do {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = try embeddedPort(environment)
        configuration.allowsPrivateConsoleHosts = options.allowsPrivateTargets
        configuration.console.caFile = caFile
        let serverState = URL(fileURLWithPath: options.stateDirectory)
          .appendingPathComponent("server")
        configuration.stateDirectory = serverState
        do {
          configuration.dataDirectory = try SkillFolderChoice.resolve(
            requested: options.skills, serverStateDirectory: serverState)
        } catch {
          throw StartupError(message: "\(error)", exitCode: ExitCode.dataError)
        }
        let server = try await EmbeddedServer.start(configuration, fallBackToAnyPort: true)
        // Said when the skills are read afresh (the first start, or after a file changed), not
        // at every start: nothing changed since.
        if let summary = server.handler.loadSummary, !server.handler.skillsUnchangedSinceIndexed {
          warnings.append(summary)
        }
        embedded = server
      } catch let error as StartupError {
        sink.close()
        throw error
      } catch {
        sink.close()
        throw StartupError(
          message: "cannot start the built-in SUSI server: \(error)", exitCode: ExitCode.unavailable
        )
      }
    }

    var configuration = RunnerConfiguration(
      stateDirectory: options.stateDirectory, embeddedServerURL: embedded?.baseURLString,
      websearchURL: options.websearchURL
        ?? (options.server == nil ? embedded?.websearchURL.absoluteString : nil)
        ?? RunnerConfiguration.defaultWebsearchURL)
    if let clock { configuration.clock = clock }
    configuration.proxies = ProxySettings(environment: environment)
    configuration.imageDirectory = options.imageDirectory
    if options.verbose {
      configuration.trace = { StandardStream.error.line("susi: \($0)") }
    }
    configuration.caFile = caFile
    configuration.targetPolicy = TargetPolicy(
      allowsPrivateTargets: options.allowsPrivateTargets,
      allowedOrigins: options.server.map { [$0] } ?? [])
    let runner = SusiRunner(configuration: configuration)
    let store = Store(
      sink: sink, runner: runner, clock: clock ?? SystemTimeSource(), recovered: recovered)
    if let snapshots = opened.snapshots { await store.keepSnapshots(snapshots) }
    let app = SusiApp(
      store: store, options: options, embedded: embedded, warnings: warnings,
      resumedEvents: recovered.lastSeq, startedAlone: opened.alone, databaseLog: opened.database,
      caFile: caFile)
    do {
      // Planned answers belong to no one process: every process on the log waits for each, and
      // the first to log its delivery wins. Other requests in flight belong to a live process
      // unless this one was alone on the log: only then are they closed here.
      let resumed = try await store.resumePlannedAnswers()
      app.plans.withLock { $0 = resumed.plans }
      var logged = resumed.logged
      if opened.alone {
        logged += try await store.closeInterruptedRequests(
          keeping: Set(resumed.plans.filter { $0.fate != .dropped }.map(\.seq)))
      }
      if let database = opened.database {
        // Other nodes' appends arrive by NOTIFY, not by looking every so often.
        let follower = try PostgresFollower(
          location: database.location, sink: database, store: store,
          warnings: app.backgroundWarnings)
        app.follower.withLock { $0 = follower }
      } else {
        await store.followOtherWriters(fallback: followInterval)
      }
      // The log's state holds the server in use; this run's (`serverForRun`) replaces it. Tools
      // that never talk to a server (administration) leave it be.
      let wanted = options.server ?? State.embeddedServer
      if startEmbedded, await store.state.server != wanted {
        logged += try await app.sendAndWait(
          .setServer(Action.SetServer(url: wanted)), origin: origin, timeout: 10)
      }
      app.startup.withLock { $0 = logged }
      if startEmbedded { await app.rememberServerSwitches(except: Set(logged.map(\.seq))) }
    } catch {
      await app.stop()
      throw StartupError(message: "\(error)", exitCode: ExitCode.ioError)
    }
    return app
  }

  /// The server this run uses. `--server` and SUSI_SERVER apply to this run; otherwise the
  /// remembered choice, else the built-in server — unless another susi is running on the log,
  /// which then keeps the server it uses rather than have it switched under it.
  ///
  /// Before the choice was kept in `STATE-DIR/remembered-server`, the server last switched to in
  /// the log was used again: on the first start without that file, the log's server becomes
  /// the remembered choice, so nobody finds themselves on another server after an upgrade.
  static func serverForRun(_ options: CommonOptions, logServer: String, alone: Bool)
    -> CommonOptions
  {
    var options = options
    let path = RememberedServer.path(in: options.stateDirectory)
    if !FileManager.default.fileExists(atPath: path) {
      let remembered = RememberedServer(server: logServer == State.embeddedServer ? nil : logServer)
      try? remembered.save(stateDirectory: options.stateDirectory)
      if !options.serverSource.isForThisRun, options.serverSource != .remembered,
        let server = remembered.server
      {
        options.server = server
        options.serverSource = .remembered
      }
    }
    if !options.serverSource.isForThisRun, !alone,
      logServer != (options.server ?? State.embeddedServer)
    {
      options.server = logServer == State.embeddedServer ? nil : logServer
      options.serverSource = .sharedLog
    }
    return options
  }

  /// Remembers every explicit switch this process logs (`/server URL`, a `setServer` intent from
  /// a program) as the server later runs use; the switch start-up made for `--server` or
  /// SUSI_SERVER (whose seqs are `startup`) is for this run only.
  private func rememberServerSwitches(except startup: Set<Int>) async {
    let stateDirectory = options.stateDirectory
    let forwarding = EventForwarding(store.events(after: await store.lastSeq)) { published in
      guard !published.byAnotherProcess, case .serverChanged(let changed) = published.event.action,
        let cause = published.event.cause, !startup.contains(cause)
      else { return }
      var choice = (try? RememberedServer.load(stateDirectory: stateDirectory)) ?? nil
      if choice?.server != changed.url { choice = RememberedServer(server: changed.url) }
      try? choice?.save(stateDirectory: stateDirectory)
    }
    serverSwitches.withLock { $0 = forwarding }
  }

  /// The environment variable that sets the built-in server's port (0: any free port).
  public static let embeddedPortVariable = "SUSI_EMBEDDED_PORT"

  /// The port the built-in server should listen on: `SUSI_EMBEDDED_PORT`, or the fixed default
  /// (so its links survive a restart). When it is taken, a free port is used for that run.
  static func embeddedPort(_ environment: [String: String]) throws(StartupError) -> Int {
    guard let text = environment[embeddedPortVariable] else { return EmbeddedServer.defaultPort }
    guard let port = Int(text), (0...65535).contains(port) else {
      throw StartupError(
        message: "\(embeddedPortVariable) takes a port number from 0 to 65535, not '\(text)'",
        exitCode: ExitCode.usage)
    }
    return port
  }

  /// How often a running susi looks for events other susi processes appended to its log.
  public static let defaultFollowInterval: Duration = .seconds(2)

  /// Sends an intent and waits until every result it caused has arrived (or `timeout` seconds
  /// pass). Returns the intent's event followed by its results, in log order, following chains
  /// (a planned answer is caused by the answer that carried it).
  public func sendAndWait(
    _ action: Action, origin: EventOrigin, id: JSON? = nil, timeout: Double = 60
  ) async throws(StoreError) -> [PublishedEvent] {
    let sent = try await store.send(action, origin: origin, id: id)
    let (results, _) = await store.collectResults(of: sent.seq) {
      try? await TimerSleeper.shared.sleep(milliseconds: Int64(timeout * 1000))
    }
    return [sent] + results
  }

  /// Stops the runner, closes the log and stops the built-in server.
  public func stop() async {
    follower.withLock { $0 }?.stop()
    serverSwitches.withLock { $0 }?.stop()
    await store.close()
    await store.finishSnapshots()
    await embedded?.stop()
  }

  /// The path that files kept beside the log start with (`susi serve`'s keys, subscribers,
  /// cursors and lock): the log file's own path, or for a log in PostgreSQL `STATE-DIR/node`,
  /// since those files belong to this node, not to the shared log.
  /// Makes the state folder for the latter when it is missing.
  public static func besideLog(_ options: CommonOptions) -> String {
    guard PostgresLogLocation.isLocation(options.log) else { return options.log }
    try? makeDirectory(options.stateDirectory)
    return options.stateDirectory + "/node"
  }

  /// What `/healthz` says of the log: nil when it is a file or the database answers, else why
  /// not.
  public func logProblem() -> String? {
    guard let databaseLog else { return nil }
    switch databaseLog.ping() {
    case .success: return nil
    case .failure(let error): return "the database log \(databaseLog.location) fails: \(error)"
    }
  }

  /// A log opened and replayed: a file (with its snapshots) or a table in PostgreSQL.
  private struct OpenedLog {
    var sink: any EventSink
    var recovered: Recovered
    var warnings: [String]
    var snapshots: SnapshotKeeper?
    var alone: Bool
    var database: PostgresEventSink?
  }

  /// Connects to the log in PostgreSQL that `options.log` names and replays it.
  private static func openDatabaseLog(_ options: CommonOptions, environment: [String: String])
    throws(StartupError) -> OpenedLog
  {
    let location: PostgresLogLocation
    do {
      location = try PostgresLogLocation(options.log)
    } catch {
      throw StartupError(message: "\(error)", exitCode: ExitCode.usage)
    }
    do {
      let every = environment[LogRecovery.intervalVariable].flatMap { Int($0) }.map { max($0, 0) }
      let opened = try PostgresLogRecovery.open(
        location, durable: options.fsync != "never",
        snapshotEvery: every ?? SnapshotKeeper.defaultInterval)
      return OpenedLog(
        sink: opened.sink, recovered: opened.recovered, warnings: opened.warnings,
        snapshots: opened.snapshots, alone: opened.alone, database: opened.sink)
    } catch {
      throw StartupError(
        message: "cannot open the log \(location): \(error)",
        exitCode: error.isCorruption ? ExitCode.dataError : ExitCode.unavailable)
    }
  }

  private static func makeDirectory(_ path: String) throws(StartupError) {
    guard !path.isEmpty else { return }
    do {
      try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw StartupError(
        message: "cannot create the folder \(path): \(error.localizedDescription)",
        exitCode: ExitCode.cannotCreate)
    }
  }
}

/// Why susi could not start, with the exit code to use.
public struct StartupError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public var exitCode: Int32

  public init(message: String, exitCode: Int32) {
    self.message = message
    self.exitCode = exitCode
  }

  init(opened error: LogRecovery.Failure, log: String) {
    switch error {
    case .log(let error): self.init(logError: error)
    case .replay(let error):
      self.init(
        message:
          "cannot rebuild the state from \(error); run 'susi replay \(log)' to inspect it",
        exitCode: error.isCorruption ? ExitCode.dataError : ExitCode.ioError)
    }
  }

  init(logError error: EventLogError) {
    switch error.code {
    case .inUse:
      self.init(message: "\(error)", exitCode: ExitCode.cannotCreate)
    case _ where error.isCorruption:
      self.init(
        message:
          "\(error); nothing after that line was applied. Inspect it with 'susi replay \(error.path)'",
        exitCode: ExitCode.dataError)
    default:
      self.init(message: "\(error)", exitCode: ExitCode.ioError)
    }
  }

  public var description: String { message }
}
