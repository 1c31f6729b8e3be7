import SusiFrontendSupport

/// How a command ended, for the exit code of a one-shot command and the chat's bookkeeping.
public enum Outcome: Sendable, Equatable {
  case ok
  /// A request failed or was refused; the message has been printed.
  case failed
  /// The command was typed wrong; the message has been printed.
  case usage
  /// Ctrl-C cancelled it.
  case interrupted
  /// The person asked to leave the chat.
  case quit

  public var exitCode: Int32 {
    switch self {
    case .ok, .quit: ExitCode.success
    case .failed: ExitCode.failure
    case .usage: ExitCode.usage
    case .interrupted: ExitCode.interrupted
    }
  }
}
