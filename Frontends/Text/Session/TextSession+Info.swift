import SusiStore

// Help, and where the event log is.

extension TextSession {
  /// The chat's commands, one per line.
  static let helpLines: [(String, String)] = [
    ("TEXT", "ask SUSI (start with // to ask something that begins with /)"),
    ("/groups", "list the skill groups"),
    ("/skills [GROUP]", "list the skills of a group, or all skills"),
    ("/skill NAME", "show a skill: description, examples, ratings"),
    ("/rate NAME STARS", "rate a skill from 1 to 5 stars (logged in)"),
    ("/myrating NAME", "show your own rating of a skill (logged in)"),
    ("/settings", "show your settings"),
    ("/set KEY VALUE", "change a setting on the server (logged in)"),
    ("/sync", "fetch your settings from the server (logged in)"),
    ("/login [EMAIL]", "log in; the password is asked for without echo"),
    ("/logout", "log out"),
    ("/signup [EMAIL]", "create an account"),
    ("/server [URL]", "show the server in use, or switch ('embedded' = built in)"),
    ("/search TEXT", "search the web"),
    ("/preview URL", "show what a web page says about itself"),
    ("/history", "show what the server remembers of your chats"),
    ("/replay", "where this session's event log is and how to replay it"),
    ("/help", "this list"),
    ("/quit", "leave (Ctrl-D works too; Ctrl-C cancels a request)"),
  ]

  func help() -> Outcome {
    let rows = Self.helpLines.map { [$0.0, $0.1] }
    console.print(renderer.table(TextTable(rows: rows, alignments: [.left, .left])))
    console.print("\nKeys at a terminal:")
    let keys = Self.keyLines.map { [$0.0, $0.1] }
    console.print(renderer.table(TextTable(rows: keys, alignments: [.left, .left])))
    return .ok
  }

  /// The line editor's keys (at a terminal whose TERM is not `dumb`).
  static let keyLines: [(String, String)] = [
    ("Up, Down", "earlier lines typed in the chat, also from earlier runs"),
    ("Left, Right, Home, End", "move in the line (Ctrl-A start, Ctrl-E end)"),
    ("Backspace, Delete", "delete before, under the cursor"),
    ("Ctrl-W, Ctrl-U, Ctrl-K", "delete the word before, all before, all after the cursor"),
    ("Tab", "complete a /command, or a skill or group name after one"),
    ("Ctrl-C", "drop the line; twice in a row leaves"),
    ("Ctrl-D", "leave, on an empty line"),
    ("Ctrl-Z", "stop susi for the shell; fg brings the line back"),
  ]

  func replayHelp() async -> Outcome {
    let log = ShellQuote.quoteIfNeeded(context.logPath)
    let events = await store.lastSeq
    console.print(
      TextRenderer.join([
        "This session's event log is \(context.logPath) (\(events) event\(events == 1 ? "" : "s")).",
        "Replay it to see the state it rebuilds:",
        "  susi replay \(log)            the final state",
        "  susi replay --step \(log)     each event and what it changed",
        "  susi replay --verify \(log)   check that replaying gives the same state",
        "Start susi with --log \(log) to continue this session later.",
      ]))
    return .ok
  }
}
