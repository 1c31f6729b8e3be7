import SusiCommandLine
import SusiCore
public import SusiStore
public import SusiTerminal

/// The text frontend's conversation with the store: the chat reads lines and runs each as a
/// command (or asks it), a one-shot subcommand runs one; each command sends its intents, waits
/// for their results and prints them for a person, so both behave the same. How a command ends
/// is an `Outcome`.
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
}

// The chat: a prompt on a terminal, one line after another from a pipe.

extension TextSession {
  /// Reads lines until `/quit` or the end of input: plain text is asked, `/commands` are run,
  /// each line's answer is printed before the next line is read. At the end, answers planned
  /// for later stay pending for the next start (it says so), unless `--wait` waits for them.
  /// Returns the exit code: 0 on a terminal; from a pipe, 1 when any line failed.
  public func chat() async -> Int32 {
    if console.interactive && console.notes { console.print(await welcome()) }
    var failed = false
    while true {
      waitingForLine = true
      let read: LineRead
      if let lineReader {
        read = await lineReader.readLine(prompt: Self.prompt, completions: completionWords())
      } else {
        if console.interactive { console.writeOutput(Self.prompt) }
        read = await input.nextLine()
      }
      waitingForLine = false
      if read == .cancelled, lineReader != nil {
        // Ctrl-C typed at the line editor (raw mode makes it a key, not a signal): the line
        // is dropped; a second press leaves, as at a plain prompt.
        interrupts += 1
        if interrupts >= 2 {
          await context.terminate(130)
          return 130
        }
        console.writeError("(press Ctrl-C again or type /quit to leave)\n")
        continue
      }
      interrupts = 0
      guard case .line(let line) = read else {
        if read == .cancelled { continue }
        if console.interactive { console.writeOutput("\n") }
        break
      }
      let outcome: Outcome
      switch ChatLine.parse(line) {
      case .empty: continue
      case .query(let query): outcome = await run(TextCommand("ask", query))
      case .command(let command): outcome = await run(command)
      case .invalid(let message):
        console.error("\(message) (/help lists the commands)")
        outcome = .usage
      }
      if outcome == .quit { break }
      if outcome != .ok && outcome != .interrupted { failed = true }
    }
    let pending = await finishBackgroundWork()
    if console.interactive { noteKept(pending) }
    return console.interactive || !failed ? 0 : 1
  }

  /// What Tab completes: the chat's commands, the skill names the state knows after `/skill`,
  /// `/rate` and `/myrating`, and its group names after `/skills`.
  func completionWords() async -> CompletionWords {
    let state = await store.state
    let skills = state.skills.values.flatMap(\.keys)
    var arguments: [String: [String]] = [:]
    for row in TextCommands.chat where row.completes != nil {
      arguments["/" + row.name] = row.completes == .skills ? skills : state.groups
    }
    return CompletionWords(commands: TextCommands.chat.map { "/" + $0.name }, arguments: arguments)
  }

  /// The first line of an interactive chat: what this is, or a summary of the resumed session.
  func welcome() async -> String {
    let state = await store.state
    let server = await serverDescription()
    guard context.resumedEvents > 0 else {
      return "susi: chat with SUSI using \(server). Type a question, or /help for commands."
    }
    let exchanges = state.transcript.filter { $0.speaker == .user }.count
    var parts = ["\(NumberText.counted(exchanges, "question")) so far"]
    let skillCount = state.skills.values.map(\.count).reduce(0, +)
    if skillCount > 0 {
      parts.append(
        "\(NumberText.counted(skillCount, "skill")) in \(NumberText.counted(state.skills.count, "group"))"
      )
    }
    if !state.settings.isEmpty {
      parts.append(NumberText.counted(state.settings.count, "setting"))
    }
    parts.append(state.session.map { "logged in as \($0.email)" } ?? "not logged in")
    return
      "Welcome back: \(parts.joined(separator: ", ")); using \(server). /help lists the commands."
  }

  /// What Ctrl-C does: cancel the request being waited for, or the password being typed; at an
  /// idle prompt explain how to leave; a second press (or one with nothing to cancel in a
  /// one-shot command) leaves at once with exit code 130.
  public func interrupt() async {
    interrupts += 1
    if interrupts >= 2 {
      if console.interactive { console.writeOutput("\n") }
      await context.terminate(130)
      return
    }
    if waitingForSecret {
      input.cancel()
      return
    }
    var requests = conversation.requests
    while requests.waitingFor.isEmpty && requests.sending {
      // A request is being logged: its seq is known in a moment, and it is what to cancel.
      await Task.yield()
      requests = conversation.requests
    }
    let waiting = requests.waitingFor
    if !waiting.isEmpty {
      console.writeError("\n")
      for seq in waiting {
        _ = try? await store.send(
          .cancelRequest(Action.CancelRequest(seq: seq)), origin: conversation.origin)
      }
      return
    }
    if mode == .chat && waitingForLine {
      console.writeOutput("\n")
      console.writeError("(press Ctrl-C again or type /quit to leave)\n")
      restorePrompt()
      return
    }
    if countdown != nil {
      await stopCountdown()
      console.writeError(
        console.errorStyle.dim(
          "Stopped waiting; planned answers stay pending for the next susi run.") + "\n")
    }
    await context.terminate(130)
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

/// How a command ended, for the exit code of a one-shot command and the chat's bookkeeping. A
/// command that does not end `ok` throws how it ended.
public enum Outcome: Error, Sendable, Equatable {
  case ok
  /// A request failed or was refused; the message has been printed.
  case failed
  /// The command was typed wrong; the message has been printed.
  case usage
  /// A file it needs (a password file) could not be read; the message has been printed.
  case noInput
  /// Ctrl-C cancelled it.
  case interrupted
  /// The person asked to leave the chat.
  case quit

  public var exitCode: Int32 {
    switch self {
    case .ok, .quit: ExitCode.success
    case .failed: ExitCode.failure
    case .usage: ExitCode.usage
    case .noInput: ExitCode.noInput
    case .interrupted: ExitCode.interrupted
    }
  }
}
