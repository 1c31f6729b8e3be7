import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Puts the terminal in raw mode while a chat line is edited, and back afterwards — on every
/// way out: the settings to restore are kept here, process-wide, so the exit path can restore
/// them too, and a SIGTERM that arrives while the prompt waits restores them before it ends
/// the process as it always did.
public enum TerminalRawMode {
  private static let saved = Mutex<(settings: termios, termination: sighandler_t?)?>(nil)

  /// Turns off line buffering, echo and Ctrl-C/Ctrl-Z as signals on standard input; false when
  /// it is not a terminal (nothing changed).
  @discardableResult
  public static func enable() -> Bool {
    var settings = termios()
    guard isatty(0) == 1, tcgetattr(0, &settings) == 0 else { return false }
    var raw = settings
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON)
    // Enter still arrives as a line break (ICRNL stays), so lines typed ahead read the same
    // in raw and in cooked mode; output processing stays too, so "\n" still starts a new row
    // and answers printed meanwhile look as they always did.
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    return saved.withLock { saved in
      guard saved == nil else { return true }
      settingsForSignal = settings
      let previous = signal(SIGTERM, restoreAndEnd)
      guard tcsetattr(0, TCSADRAIN, &raw) == 0 else {
        signal(SIGTERM, previous)
        return false
      }
      saved = (settings, previous)
      return true
    }
  }

  /// Puts back the settings `enable` found; does nothing when raw mode is off.
  public static func restore() {
    saved.withLock { saved in
      guard let (found, termination) = saved else { return }
      var settings = found
      _ = tcsetattr(0, TCSADRAIN, &settings)
      signal(SIGTERM, termination)
      saved = nil
    }
  }
}

/// The settings the SIGTERM handler puts back: a signal handler may not take a lock, so they
/// are copied here before the handler is installed and only read while it is.
nonisolated(unsafe) private var settingsForSignal = termios()

/// SIGTERM while raw mode is on: restore the terminal, then end as SIGTERM always did (the
/// signal is blocked while this runs and delivered with its default action on return).
private func restoreAndEnd(_ number: Int32) {
  _ = tcsetattr(0, TCSANOW, &settingsForSignal)
  signal(number, SIG_DFL)
  raise(number)
}
