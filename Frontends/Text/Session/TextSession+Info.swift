import SusiCommandLine
import SusiStore
import SusiTerminal

// Help, and where the event log is.

extension TextSession {
  /// The chat's commands, one per line.
  static let helpLines =
    [["TEXT", "ask SUSI (start with // to ask something that begins with /)"]]
    + TextCommands.chat.map { [$0.chatUsage, $0.help ?? ""] }

  func help() {
    console.print(renderer.table(TextTable(rows: Self.helpLines, alignments: [.left, .left])))
    console.print("\nKeys at a terminal:")
    console.print(renderer.table(TextTable(rows: Self.keyLines, alignments: [.left, .left])))
  }

  /// The line editor's keys (at a terminal whose TERM is not `dumb`).
  static let keyLines = [
    ["Up, Down", "earlier lines typed in the chat, also from earlier runs"],
    ["Left, Right, Home, End", "move in the line (Ctrl-A start, Ctrl-E end)"],
    ["Backspace, Delete", "delete before, under the cursor"],
    ["Ctrl-W, Ctrl-U, Ctrl-K", "delete the word before, all before, all after the cursor"],
    ["Tab", "complete a /command, or a skill or group name after one"],
    ["Ctrl-C", "drop the line; twice in a row leaves"],
    ["Ctrl-D", "leave, on an empty line"],
    ["Ctrl-Z", "stop susi for the shell; fg brings the line back"],
  ]

  func replayHelp() async {
    let log = ShellQuote.quoteIfNeeded(context.logPath)
    let events = await store.lastSeq
    console.print(
      TextRenderer.join([
        "This session's event log is \(context.logPath) (\(NumberText.counted(events, "event"))).",
        "Replay it to see the state it rebuilds:",
        "  susi replay \(log)            the final state",
        "  susi replay --step \(log)     each event and what it changed",
        "  susi replay --verify \(log)   check that replaying gives the same state",
        "Start susi with --log \(log) to continue this session later.",
      ]))
  }
}

extension TextCommands {
  /// The commands of this file, in the order `/help` lists them.
  static let infoCommands: [TextCommandRow] = [
    TextCommandRow(
      name: "replay", help: "where this session's event log is and how to replay it"
    ) { session, _ in await session.replayHelp() },
    TextCommandRow(name: "help", aliases: ["?"], help: "this list") { session, _ in
      await session.help()
    },
    TextCommandRow(
      name: "quit", aliases: ["exit", "q"],
      help: "leave (Ctrl-D works too; Ctrl-C cancels a request)"
    ) { _, _ in throw Outcome.quit },
  ]
}
