import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Turns the terminal's echo off while a password is typed, and back on afterwards — on every
/// way out, Ctrl-C and exit included: the settings to restore are kept here, process-wide, so
/// the interrupt handler and the exit path can restore them too.
public enum TerminalEcho {
  private static let saved = Mutex<termios?>(nil)

  /// Turns echo off on standard input; false when it is not a terminal (nothing changed).
  @discardableResult
  public static func disable() -> Bool {
    var settings = termios()
    guard isatty(0) == 1, tcgetattr(0, &settings) == 0 else { return false }
    saved.withLock { previous in if previous == nil { previous = settings } }
    var quiet = settings
    quiet.c_lflag &= ~tcflag_t(ECHO)
    // Keep the line break visible so the next output starts on a fresh line.
    quiet.c_lflag |= tcflag_t(ECHONL)
    // Like getpass, drop what was typed ahead: it was typed where it would have been echoed.
    return tcsetattr(0, TCSAFLUSH, &quiet) == 0
  }

  /// Puts back the settings `disable` found; does nothing when echo was not turned off.
  public static func restore() {
    guard
      var settings = saved.withLock({ previous -> termios? in
        defer { previous = nil }
        return previous
      })
    else { return }
    // Keep what was typed after the password: it is the next line of input.
    _ = tcsetattr(0, TCSADRAIN, &settings)
  }
}
