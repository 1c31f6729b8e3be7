import SusiCommandLine

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
