import SusiCommandLine
import SusiCore
public import SusiStore
public import SusiTerminal

/// The text frontend's conversation with the store: each command sends its intents, waits for
/// their results and prints them for a person. Shared by the chat (slash commands) and the
/// one-shot subcommands, so both behave the same.
public actor TextSession {
  /// Whether commands are typed at the chat prompt or on a shell command line; hints name the
  /// command the way the person would type it.
  public enum Mode: Sendable { case chat, shell }

  /// Sends this session's intents and follows every other event.
  let conversation: Conversation
  let console: TextConsole
  let input: any LineSource
  /// The line editor for chat lines at a terminal; nil reads them as plain lines.
  let lineReader: TerminalLineReader?
  let context: TextContext
  let mode: Mode
  let background = BackgroundWork()
  /// Whether every skill has been loaded in this run (a name is looked up once more after that).
  var loadedAllSkills = false
  /// The countdown drawn while `--wait` waits for a planned answer.
  var countdown: ProgressIndicator?
  /// Ctrl-C presses since the last command started.
  var interrupts = 0
  /// What the session is waiting for, for Ctrl-C.
  var waitingForLine = false
  var waitingForSecret = false
  /// Where the server in use was chosen: from the context, then `/server URL`.
  var serverSource: ServerSource

  var store: Store { conversation.store }
  var renderer: TextRenderer { console.renderer }

  /// A session on `store`; events it did not ask for (planned answers, a session the server
  /// ended) are printed as they arrive.
  public init(
    store: Store, console: TextConsole, input: any LineSource, context: TextContext, mode: Mode,
    lineReader: TerminalLineReader? = nil
  ) async {
    conversation = await store.conversation(origin: .cli, after: context.followFrom)
    self.console = console
    self.input = input
    self.lineReader = lineReader
    self.context = context
    self.mode = mode
    self.serverSource = context.serverSource
    conversation.onOtherEvents { [weak self] published in self?.unrequested(published) }
  }

  /// Runs one command; prints its results or what went wrong.
  public func run(_ command: TextCommand) async -> Outcome {
    guard let row = TextCommands.named(command.name) else {
      console.error("unknown command '\(command.name)'")
      return .usage
    }
    do {
      try await row.run(self, command)
      return .ok
    } catch let outcome as Outcome {
      return outcome
    } catch {
      return .failed
    }
  }

  /// Waits until everything started in the background has been printed, and for the answers this
  /// process's own requests are owed now; planned answers already due that this process is
  /// delivering (delivered late at start) too, those still to come only with `--wait` (with a
  /// countdown on a terminal) and only those this session's answers planned. It never waits for
  /// another process's requests or planned answers it does not deliver itself. Returns the
  /// planned answers left pending.
  @discardableResult
  public func finishBackgroundWork() async -> [PendingAnswer] {
    // What other processes logged by now is shown before leaving, not left to the next look.
    await store.catchUp()
    while true {
      let last = await store.lastSeq
      await conversation.waitUntilSeen(last)
      await background.waitUntilIdle()
      let now = context.now()
      let pending = PendingAnswer.all(in: await store.state.inFlight)
      var due = false
      for answer in pending where answer.due.map({ $0 <= now }) ?? false {
        if await store.waitsToDeliver(planned: answer.seq) { due = true }
      }
      let answersNow = await store.owesAnswersNow
      // `--wait` waits for what this session's answers planned, not for other reminders.
      let own = await store.ownPlannedAnswers
      let planned = pending.filter { own.contains($0.seq) && $0.due != nil }
      let waitForPlanned = context.waitForPlanned && !planned.isEmpty
      if due || answersNow || waitForPlanned {
        if waitForPlanned && !due && !answersNow { startCountdown(planned) }
        await conversation.waitUntilSeen(last + 1)
        await stopCountdown()
      } else if background.isIdle, await store.lastSeq == last {
        return pending
      }
    }
  }

  // MARK: Requests

  /// Sends `action` and waits for its result, showing `progress` on a terminal when the request
  /// is slow (or at once when `immediately`). Nil when the store refused the action (printed).
  func request(_ action: Action, progress label: String? = nil, immediately: Bool = false) async
    -> Event?
  {
    let spinner = ProgressIndicator(
      label ?? "Waiting for the server\(renderer.glyphs.ellipsis)",
      after: immediately ? .zero : .milliseconds(400),
      enabled: console.showsProgress, glyphs: renderer.glyphs, write: console.writeError)
    do {
      let (_, result) = try await conversation.request(action)
      await spinner.stop()
      guard let result else {
        console.error("susi is shutting down; the request was not answered")
        return nil
      }
      return result
    } catch {
      await spinner.stop()
      console.error(error.description)
      return nil
    }
  }

  /// Sends `action` and returns what `expected` reads from its result event. When the request
  /// failed, was refused or got another result, it prints why and throws how the command ends.
  /// `fromServer` is false for requests that go elsewhere (a web search, a page preview): their
  /// errors name the address that failed, and no hint points at the server.
  func result<T>(
    of action: Action, doing what: String, progress: String? = nil, immediately: Bool = false,
    fromServer: Bool = true, _ expected: (Event) -> T?
  ) async throws(Outcome) -> T {
    guard let event = await request(action, progress: progress, immediately: immediately) else {
      throw .failed
    }
    if let value = expected(event) { return value }
    guard let failed = failure(event, doing: what, fromServer: fromServer) else {
      // A result of an unexpected type: reported, never silently ignored.
      console.error("\(what) gave an unexpected \(event.action.type)")
      throw .failed
    }
    throw failed
  }

  /// Prints why `event` is not the success it should be, and says how it ended; nil when it is
  /// a success.
  func failure(_ event: Event, doing what: String, fromServer: Bool = true) -> Outcome? {
    switch event.action {
    case .requestFailed(let failed):
      if failed.error.kind == .cancelled {
        console.error("\(what) was cancelled")
        return .interrupted
      }
      let hint = fromServer ? hint(for: failed.error) : ""
      console.error("\(what) failed: \(Self.describe(failed.error))\(hint)")
      return .failed
    case .loginFailed(let failed):
      console.error("login failed: \(Self.describe(failed.error))")
      return .failed
    case .actionRejected(let rejected):
      // Refused before anything was sent: a value that fails validation is a usage error (64);
      // needing a login first is not.
      let hint =
        rejected.kind == .needsLogin ? " (\(command("/login EMAIL", "susi login EMAIL")))" : ""
      console.error(rejected.reason + hint)
      return rejected.kind == .invalid ? .usage : .failed
    default:
      return nil
    }
  }

  static func describe(_ error: RequestError) -> String {
    let message = error.message.singleLine
    if let status = error.status { return "\(message) (HTTP \(status))" }
    return message
  }

  private func hint(for error: RequestError) -> String {
    switch error.kind {
    case .network: return " (" + serverOrigin() + ")"
    // The message itself says the server did not answer in time.
    case .timeout: return ""
    case .unauthorized, .notLoggedIn:
      return "; log in again (\(command("/login EMAIL", "susi login EMAIL")))"
    default: return ""
    }
  }

  /// Where the server in use was chosen and how to go back, for network errors.
  func serverOrigin() -> String {
    switch serverSource {
    case .commandLine: return "the server given with --server, for this run only"
    case .environment: return "the server set by SUSI_SERVER, for this run only"
    case .remembered:
      return command(
        "the remembered server; /server embedded goes back to the built-in server",
        "the remembered server, chosen with 'susi server use'; go back with "
          + "'susi server use embedded', or give --server embedded for one run")
    case .configFile:
      return command(
        "the config file's server; /server embedded switches to the built-in server",
        "the config file's server; give --server embedded for one run, or "
          + "'susi config unset server'")
    case .sharedLog:
      return "the server another susi on this log uses; /server in that chat shows it"
    case .builtIn: return command("/server shows which server is used", "the built-in server")
    }
  }

  /// How to type a command in the current mode.
  func command(_ slash: String, _ shell: String) -> String { mode == .chat ? slash : shell }

  // MARK: Events nobody asked for

  /// Called by the conversation's follower, in log order; starts printing in the background.
  nonisolated func unrequested(_ published: PublishedEvent) {
    let event = published.event
    switch event.action {
    case .messageReceived(let message) where event.origin == .runner:
      background.start { await self.showPlanned(message) }
    case .sendMessage(let asked) where published.byAnotherProcess:
      background.start { await self.announce("Asked in another susi: \(asked.query.singleLine)") }
    case .loggedOut(let out):
      if let reason = out.reason {
        background.start { await self.announce("Logged out: \(reason.singleLine)") }
      }
    default:
      break
    }
  }

  /// Prints a planned answer that arrived on its own.
  func showPlanned(_ message: Action.MessageReceived) async {
    await stopCountdown()
    interruptPrompt()
    _ = await show(message)
    restorePrompt()
  }

  func announce(_ text: String) {
    interruptPrompt()
    console.error(text)
    restorePrompt()
  }

  /// Moves off the prompt line before printing something that arrived on its own.
  func interruptPrompt() {
    guard waitingForLine && console.interactive else { return }
    // A line being typed is erased, and drawn again below what arrived.
    console.writeOutput(lineReader?.isEditing == true ? "\r\u{1B}[K" : "\n")
  }

  func restorePrompt() {
    guard waitingForLine && console.interactive else { return }
    if let lineReader, lineReader.isEditing {
      lineReader.redraw()
    } else {
      console.writeOutput(Self.prompt)
    }
  }

  static let prompt = "> "
}
