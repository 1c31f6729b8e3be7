import SusiCommandLine
import SusiCore
import SusiStore
import SusiTerminal

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
    var waiting = conversation.waitingFor
    while waiting.isEmpty && conversation.isSending {
      // A request is being logged: its seq is known in a moment, and it is what to cancel.
      await Task.yield()
      waiting = conversation.waitingFor
    }
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
}
