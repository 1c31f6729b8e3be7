import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Puts the terminal in raw mode while a chat line is edited, and back afterwards — on every
/// way out: the settings to restore are kept here, process-wide, so the exit path and a
/// SIGTERM that arrives while the prompt waits can restore them too.
public enum TerminalRawMode {
  private static let saved = Mutex<termios?>(nil)
  private static let termination = Mutex<(any DispatchSourceSignal)?>(nil)

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
    guard tcsetattr(0, TCSADRAIN, &raw) == 0 else { return false }
    saved.withLock { previous in if previous == nil { previous = settings } }
    restoreOnTermination()
    return true
  }

  /// Puts back the settings `enable` found; does nothing when raw mode is off.
  public static func restore() {
    guard
      var settings = saved.withLock({ previous -> termios? in
        defer { previous = nil }
        return previous
      })
    else { return }
    _ = tcsetattr(0, TCSADRAIN, &settings)
  }

  /// SIGTERM ends the chat as it always did, but the terminal is left as it was found.
  private static func restoreOnTermination() {
    termination.withLock { source in
      guard source == nil else { return }
      signal(SIGTERM, SIG_IGN)
      let handler = DispatchSource.makeSignalSource(
        signal: SIGTERM, queue: DispatchQueue(label: "susi.terminal-restore"))
      handler.setEventHandler {
        restore()
        signal(SIGTERM, SIG_DFL)
        raise(SIGTERM)
      }
      handler.resume()
      source = handler
    }
  }
}
