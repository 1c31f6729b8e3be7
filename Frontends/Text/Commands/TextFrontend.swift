import Dispatch
import SusiApplication
public import SusiCommandLine
import SusiCore
import SusiStore
import SusiTerminal
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The text frontend: `susi` / `susi chat` and the one-shot commands.
public enum TextFrontend {
  /// Every text command, in the order `susi --help` lists them.
  public static var commands: [Command] {
    let chat = Command(TextCommands.chatSpec) { invocation in
      await withSession(invocation, mode: .chat) { session in await session.chat() }
    }
    return [chat]
      + TextCommands.all.compactMap { row in
        row.spec.map { spec in
          Command(TextCommands.complete(row, spec)) { await oneShot(row, spec, $0) }
        }
      }
  }

  static func oneShot(_ row: TextCommandRow, _ spec: CommandSpec, _ invocation: Invocation) async
    -> Int32
  {
    let command: TextCommand
    do {
      command = try TextCommands.read(row, invocation.arguments)
    } catch {
      return error.report(spec)
    }
    return await withSession(invocation, mode: .shell, command: row.name) { session in
      let outcome = await session.run(command)
      if outcome == .ok { await session.finishBackgroundWork() }
      return outcome.exitCode
    }
  }

  /// Starts susi, runs `body` on a session with Ctrl-C handled, and shuts down in order.
  static func withSession(
    _ invocation: Invocation, mode: TextSession.Mode, command: String = "chat",
    _ body: (TextSession) async -> Int32
  ) async -> Int32 {
    StandardStream.ignoreBrokenPipes()
    let json = invocation.parsed.has(.json)
    let console = TextConsole.standard(
      environment: invocation.environment, utc: invocation.parsed.has(.utc), quiet: json,
      color: invocation.common.color, notes: !invocation.common.quiet)
    // Ctrl-C is handled from the start, so it never ends the process while the log is written
    // (start-up writes too); until the session exists it only asks to stop once started.
    let relay = InterruptRelay()
    let interrupts = SignalCatcher([SIGINT]) { _ in relay.interrupt() }
    defer { interrupts.cancel() }
    let app: SusiApp
    do throws(StartupError) {
      // The built-in server starts even with --server, so `/server embedded` can switch to it.
      app = try await SusiApp.start(
        invocation.common, origin: .cli, environment: invocation.environment,
        embeddedWithServer: true)
    } catch {
      console.error(error.message)
      return error.exitCode
    }
    for warning in app.warnings { console.note("susi: warning: \(warning)") }
    if relay.interruptedEarly {
      await app.stop()
      return ExitCode.interrupted
    }
    let leaving = Atomic<Bool>(false)
    let deliveredLate = app.resumedPlans.contains { $0.fate == .deliveredLate }
    let context = TextContext(
      logPath: app.options.log, embeddedServerURL: app.embeddedServerURL,
      resumedEvents: app.resumedEvents, passwordFile: invocation.parsed.value(.passwordFile),
      terminate: { code in
        guard !leaving.exchange(true, ordering: .sequentiallyConsistent) else { return }
        // A spinner drawn when Ctrl-C came must not stay on the line the shell prompt reuses.
        if console.showsProgress { console.writeError("\r\u{1B}[K") }
        TerminalEcho.restore()
        TerminalRawMode.restore()
        // The store appends whole records; closing it waits for the one being written.
        await withTimeLimit(seconds: 3) { await app.stop() }
        exit(code)
      }, waitForPlanned: invocation.parsed.has(.wait), resumedPlans: app.resumedPlans,
      startedAlone: app.startedAlone,
      // Planned answers delivered late may be logged before the session follows the log.
      followFrom: deliveredLate ? app.resumedEvents : nil,
      serverSource: app.options.serverSource, stateDirectory: app.options.stateDirectory)
    let input = StandardInput()
    var lineReader: TerminalLineReader?
    if mode == .chat && TerminalLineReader.isUsable(environment: invocation.environment) {
      lineReader = TerminalLineReader(
        input: input,
        history: LineHistory(path: invocation.common.stateDirectory + "/chat-history"),
        write: console.writeOutput,
        columns: { TerminalStyle.columns(for: .output, environment: invocation.environment) })
    }
    // A resized terminal gets the line being typed drawn again, at its new width.
    let resizes = lineReader.map { reader in SignalCatcher([SIGWINCH]) { _ in reader.redraw() } }
    defer { resizes?.cancel() }
    let session = await TextSession(
      store: app.store, console: console, input: input, context: context, mode: mode,
      lineReader: lineReader)
    if relay.attach(session) {
      // Ctrl-C came after start-up but before the session could take it: it counts now.
      await session.interrupt()
    }
    if console.notes { await session.announceResumedPlans() }
    // Shown before the command's own output, not somewhere in the middle of it.
    if deliveredLate { await session.finishBackgroundWork() }
    let recorder = json ? CommandRecord() : nil
    let events = app.store.events(after: await app.store.lastSeq)
    let recording = recorder.map { recorder in EventForwarding(events) { recorder.add($0) } }
    let code = await body(session)
    if let recorder, let recording {
      recording.stop()
      if invocation.parsed.value(.json) == "events" {
        // Only the answers this command's own questions planned: never another process's.
        let mine = recorder.seqs
        let pending = PendingAnswer.all(in: await app.store.state.inFlight).filter {
          mine.contains($0.seq)
        }
        StandardStream.output.write(
          recorder.json(command: command, exitCode: code, pending: pending) + "\n")
      } else if code == ExitCode.success {
        let settings = await app.store.state.settings
        let fallback: Action? =
          command == "settings" ? .settingsSynced(Action.SettingsSynced(settings: settings)) : nil
        if let data = recorder.data(command: command, fallback: fallback) {
          StandardStream.output.write(data + "\n")
        }
      }
    }
    TerminalEcho.restore()
    TerminalRawMode.restore()
    if leaving.exchange(true, ordering: .sequentiallyConsistent) {
      // `terminate` is closing the store (which is how `body` ended) and then exits with its
      // own code; returning here would race it with `code`.
      while true { try? await Task.sleep(for: .seconds(60)) }
    }
    await app.stop()
    return code
  }

  /// Runs `work`, giving up waiting for it after `seconds` (it goes on in the background).
  static func withTimeLimit(seconds: Double, _ work: @escaping @Sendable () async -> Void) async {
    let (ended, end) = AsyncStream<Void>.makeStream()
    Task {
      await work()
      end.yield()
    }
    Task {
      try? await Task.sleep(for: .seconds(seconds))
      end.yield()
    }
    for await _ in ended { break }
  }
}

/// Passes Ctrl-C to the session once there is one; before that, remembers that it came.
private final class InterruptRelay: Sendable {
  private let state = Mutex<(session: TextSession?, early: Bool)>((nil, false))

  func interrupt() {
    let session = state.withLock { current -> TextSession? in
      if current.session == nil { current.early = true }
      return current.session
    }
    if let session { Task { await session.interrupt() } }
  }

  /// Hands interrupts to `session` from now on; true when one came before (and was not
  /// handled by start-up), so the session should take it at once.
  func attach(_ session: TextSession) -> Bool {
    state.withLock { current in
      current.session = session
      defer { current.early = false }
      return current.early
    }
  }

  var interruptedEarly: Bool { state.withLock { $0.early } }
}
