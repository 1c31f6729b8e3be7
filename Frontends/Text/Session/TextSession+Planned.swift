import SusiCommandLine
public import SusiCore
import SusiStore
import SusiTerminal

// Planned answers (reminders, `plan_delay`): a command prints the answer it got at once and
// says what is still to come; the answer itself stays pending in the log, where every susi
// running on it when it is due (a chat in another terminal) delivers and shows it, or else the
// next start (Store.resumePlannedAnswers); `--wait` waits for it. Before leaving, a session
// waits for what it printed in the background and for the answers it is owed now.

/// A planned answer not delivered yet.
public struct PendingAnswer: Equatable, Sendable {
  /// The seq of the answer that planned it.
  public var seq: Int
  /// When it is due; nil when the log does not say (written by an older susi).
  public var due: Timestamp?

  /// The planned answers in flight, soonest first.
  static func all(in inFlight: InFlightRequests) -> [PendingAnswer] {
    inFlight.filter { $0.value.isPlannedAnswer }
      .map { PendingAnswer(seq: $0.key, due: $0.value.due) }
      .sorted {
        ($0.due ?? Timestamp(milliseconds: .max)) < ($1.due ?? Timestamp(milliseconds: .max))
      }
  }
}

extension TextSession {
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

  /// Says what an answer planned for later, right after the answer was printed: when each part
  /// is due, and what becomes of it.
  func notePlanned(_ message: Action.MessageReceived, answeredAt at: Timestamp) {
    guard let first = message.planned.first else { return }
    let now = context.now()
    let due = at.adding(milliseconds: Int64(max(0, first.delayMilliseconds)))
    let count = message.planned.count
    var text =
      "SUSI planned \(count == 1 ? "another answer" : "\(count) more answers"), "
      + "\(count == 1 ? "due" : "the first due") \(renderer.dueText(due, now: now))"
    if mode == .chat && console.interactive {
      text += "; it is shown here when it arrives."
    } else if context.waitForPlanned {
      text += "; waiting for it (Ctrl-C stops waiting, it stays pending)."
    } else {
      text +=
        ". It stays pending: a susi running then (a chat) shows it, or else the next one started "
        + "after that time; or wait for it with --wait."
    }
    if console.notes { console.writeError(console.errorStyle.dim(text) + "\n") }
  }

  /// Tells the person what start-up did with planned answers of an earlier run: those that came
  /// due undelivered are delivered now (printed as they arrive) or dropped when too late; in an
  /// interactive chat, those still to come are mentioned too. "While susi was not running" is
  /// said only when no other susi was running at start.
  public func announceResumedPlans() {
    let now = context.now()
    for plan in context.resumedPlans {
      let about = "A planned answer to \"\(plan.query.singleLine)\""
      let due = renderer.dueText(plan.due, now: now)
      let text: String
      let why = context.startedAlone ? " while susi was not running" : ""
      switch plan.fate {
      case .deliveredLate:
        text = "\(about) was due \(due)\(why.isEmpty ? "" : ",")\(why); here it is, late:"
      case .dropped:
        text = "\(about) was due \(due), more than 12 hours ago\(why); dropped."
      case .rescheduled:
        guard mode == .chat && console.interactive else { continue }
        text = "\(about) from an earlier run is due \(due); it is shown here when it arrives."
      }
      console.writeError(console.errorStyle.dim(text) + "\n")
    }
  }

  /// At the end of an interactive chat: which planned answers are kept for the next start.
  func noteKept(_ pending: [PendingAnswer]) {
    guard !pending.isEmpty else { return }
    let now = context.now()
    let dues = pending.compactMap(\.due).map { renderer.dueText($0, now: now) }
    let count = pending.count
    var text = "\(count == 1 ? "1 planned answer is" : "\(count) planned answers are") kept"
    if !dues.isEmpty { text += " (due \(dues.joined(separator: ", ")))" }
    text +=
      ": a susi running then shows \(count == 1 ? "it" : "them"), or else the next one started "
      + "after that time."
    if console.notes { console.writeError(console.errorStyle.dim(text) + "\n") }
  }

  /// Draws a countdown to the soonest of `pending` on a terminal, until `stopCountdown`.
  func startCountdown(_ pending: [PendingAnswer]) {
    guard countdown == nil, let due = pending.compactMap(\.due).min() else { return }
    let what = pending.count == 1 ? "a planned answer" : "\(pending.count) planned answers"
    countdown = ProgressIndicator(
      after: .zero, enabled: console.showsProgress, glyphs: renderer.glyphs,
      write: console.writeError
    ) { [renderer, now = context.now] in
      "Waiting for \(what), due " + renderer.dueText(due, now: now()) + " (Ctrl-C stops waiting)"
    }
  }

  func stopCountdown() async {
    guard let drawing = countdown else { return }
    countdown = nil
    await drawing.stop()
  }
}

// Events nobody asked for: planned answers and notices that arrive on their own.

extension TextSession {
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
}
