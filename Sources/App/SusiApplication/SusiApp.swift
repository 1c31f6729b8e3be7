public import Foundation
public import SusiClock
public import SusiCommandLine
public import SusiCore
import SusiEventLog
import SusiHTTPClient
public import SusiJSON
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

  private init(
    store: Store, options: CommonOptions, embedded: EmbeddedServer?, warnings: [String],
    resumedEvents: Int, startedAlone: Bool
  ) {
    self.startedAlone = startedAlone
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
  ///   - followInterval: how often the log is checked for what other susi processes appended.
  public static func start(
    _ options: CommonOptions, origin: EventOrigin,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    clock: (any TimeSource)? = nil, startEmbedded: Bool = true, embeddedWithServer: Bool = false,
    followInterval: Duration = defaultFollowInterval
  ) async throws(StartupError) -> SusiApp {
    var options = options
    var warnings: [String] = []
    try makeDirectory(options.stateDirectory)
    try makeDirectory((options.log as NSString).deletingLastPathComponent)

    // The log: newest matching snapshot, then the tail (LogRecovery, in SusiStore).
    let opened: LogRecovery.Opened
    do {
      opened = try LogRecovery.open(
        path: options.log, fsync: EventLogFsyncPolicy(rawValue: options.fsync) ?? .batch,
        environment: environment, shared: true)
    } catch {
      throw StartupError(opened: error, log: options.log)
    }
    let writer = opened.writer
    let recovered = opened.recovered
    warnings += opened.warnings
    if startEmbedded {
      options = serverForRun(options, logServer: recovered.state.server, alone: opened.alone)
    }

    var embedded: EmbeddedServer?
    if startEmbedded && (options.server == nil || embeddedWithServer) {
      do {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = try embeddedPort(environment)
        configuration.allowsPrivateConsoleHosts = options.allowsPrivateTargets
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
        if let summary = server.handler.loadSummary { warnings.append(summary) }
        embedded = server
      } catch let error as StartupError {
        try? writer.close()
        throw error
      } catch {
        try? writer.close()
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
    do throws(StartupError) {
      configuration.caFile = try RememberedCAFile.resolve(
        given: options.caFile, server: options.server ?? State.embeddedServer,
        stateDirectory: options.stateDirectory)
    } catch {
      try? writer.close()
      await embedded?.stop()
      throw error
    }
    configuration.targetPolicy = TargetPolicy(
      allowsPrivateTargets: options.allowsPrivateTargets,
      allowedOrigins: options.server.map { [$0] } ?? [])
    let runner = SusiRunner(configuration: configuration)
    let store = Store(
      sink: FileEventSink(writer: writer), runner: runner, clock: clock ?? SystemTimeSource(),
      recovered: recovered)
    await store.keepSnapshots(opened.snapshots)
    let app = SusiApp(
      store: store, options: options, embedded: embedded, warnings: warnings,
      resumedEvents: recovered.lastSeq, startedAlone: opened.alone)
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
      await store.followOtherWriters(every: followInterval)
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
    _ = await store.observe { published in
      guard !published.byAnotherProcess, case .serverChanged(let changed) = published.event.action,
        let cause = published.event.cause, !startup.contains(cause)
      else { return }
      var choice = (try? RememberedServer.load(stateDirectory: stateDirectory)) ?? nil
      if choice?.server != changed.url { choice = RememberedServer(server: changed.url) }
      try? choice?.save(stateDirectory: stateDirectory)
    }
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
  public static let defaultFollowInterval: Duration = .milliseconds(100)

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
    await store.close()
    await store.finishSnapshots()
    await embedded?.stop()
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
