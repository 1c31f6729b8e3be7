import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Reads chat lines at a terminal with the line editor: raw mode only while a line is typed
/// (restored before the line is handled), history kept in a `LineHistory`, Tab completion from
/// the words the session knows. Everything that decides is in `LineEditor` and `KeyDecoder`;
/// this only moves bytes.
public final class TerminalLineReader: Sendable {
  private let input: StandardInput
  private let history: LineHistory
  private let write: @Sendable (String) -> Void
  private let columns: @Sendable () -> Int
  /// The line being typed and its prompt, while one is; for redrawing after other output.
  private let editing = Mutex<(editor: LineEditor, prompt: String)?>(nil)

  /// Reads through `input`, draws with `write` (standard output) on a terminal `columns` wide.
  public init(
    input: StandardInput, history: LineHistory, write: @escaping @Sendable (String) -> Void,
    columns: @escaping @Sendable () -> Int
  ) {
    self.input = input
    self.history = history
    self.write = write
    self.columns = columns
  }

  /// Whether the chat gets the line editor: standard input and output are a terminal and the
  /// terminal is not `dumb`.
  public static func isUsable(environment: [String: String]) -> Bool {
    StandardInput.isTerminal && isatty(1) == 1 && environment["TERM"] != "dumb"
  }

  /// One chat line typed after `prompt`. `.cancelled` means Ctrl-C (the line was dropped).
  /// When raw mode cannot be had, the line is read as it is without the editor.
  public func readLine(prompt: String, completions: CompletionWords) async -> LineRead {
    guard TerminalRawMode.enable() else {
      write(prompt)
      return await input.nextLine()
    }
    defer { TerminalRawMode.restore() }
    editing.withLock {
      $0 = (LineEditor(history: history.entries, completions: completions), prompt)
    }
    defer { editing.withLock { $0 = nil } }
    redraw()
    var pending: [UInt8] = []
    while true {
      switch await input.nextBytes() {
      case .cancelled: return .cancelled
      case .end:
        write("\n")
        return .end
      case .bytes(let bytes): pending += bytes
      }
      var offset = 0
      var changed = false
      while let (key, length) = KeyDecoder.decode(pending[offset...]) {
        offset += length
        // Ctrl-L clears the screen; the line is drawn again at the top.
        if case .redraw = key { Self.clearScreen() }
        let outcome = editing.withLock { $0!.editor.handle(key) }
        switch outcome {
        case .unchanged: continue
        case .redraw: changed = true
        case .candidates(let names):
          write("\n" + names.joined(separator: "  ") + "\n")
          changed = true
        case .submit(let line):
          // Keys typed after Enter belong to whatever reads next.
          input.unread(Array(pending[offset...]))
          finish()
          history.add(line)
          return .line(line)
        case .endOfInput:
          input.unread(Array(pending[offset...]))
          finish()
          return .end
        case .suspend:
          // Stopped as Ctrl-Z would stop any program, with the terminal as the shell expects
          // it; raw mode and the line come back on `fg`.
          write("\n")
          TerminalRawMode.restore()
          Self.stopUntilContinued()
          TerminalRawMode.enable()
          changed = true
        case .interrupted:
          write("^C\n")
          return .cancelled
        }
      }
      pending.removeFirst(offset)
      if changed { redraw() }
    }
  }

  /// Stops the process (SIGTSTP) and returns once it is continued. The signal is sent to this
  /// thread with it unblocked here (dispatch threads block signals), so the stop happens before
  /// `raise` returns, not later on some other thread.
  private static func stopUntilContinued() {
    var stop = sigset_t()
    var previous = sigset_t()
    sigemptyset(&stop)
    sigaddset(&stop, SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &stop, &previous)
    raise(SIGTSTP)
    pthread_sigmask(SIG_SETMASK, &previous, nil)
  }

  /// Clears the terminal (home, erase all). Written straight to standard output, which is the
  /// terminal here: the output filter lets no sequence that moves the cursor through.
  private static func clearScreen() {
    let sequence: [UInt8] = Array("\u{1B}[H\u{1B}[2J".utf8)
    _ = sequence.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
  }

  /// Draws the prompt and the line being typed again (after other output moved off it).
  public func redraw() {
    guard let (editor, prompt) = editing.withLock({ $0 }) else { return }
    let (text, column) = editor.view(prompt: prompt, width: columns())
    write("\r" + prompt + text + "\u{1B}[K\r" + (column > 0 ? "\u{1B}[\(column)C" : ""))
  }

  /// Whether a line is being typed (so other output must move off it and redraw it).
  public var isEditing: Bool { editing.withLock { $0 != nil } }

  /// Shows the finished line whole (as far as it fits) and moves to the next one.
  private func finish() {
    if let (shown, prompt) = editing.withLock({ $0 }) {
      var editor = shown
      _ = editor.handle(.end)
      let (line, _) = editor.view(prompt: prompt, width: columns())
      write("\r" + prompt + line + "\u{1B}[K")
    }
    write("\n")
  }
}
