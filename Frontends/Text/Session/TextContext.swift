import Foundation
public import SusiCommandLine
public import SusiCore
public import SusiStore

/// What a text session knows about the program around it.
public struct TextContext: Sendable {
  /// The event log this run appends to.
  public var logPath: String
  /// Where the built-in server listens, when it is the one in use.
  public var embeddedServerURL: String?
  /// How many events were replayed from the log at start (0 for a new log).
  public var resumedEvents = 0
  /// A file holding the password (`--password-file`), read instead of asking.
  public var passwordFile: String?
  /// Leaves the program at once with this exit code, in order (echo restored, log closed).
  public var terminate: @Sendable (Int32) async -> Void
  /// Whether to wait for planned answers (reminders) before leaving (`--wait`); without it they
  /// stay pending in the log for the next start.
  public var waitForPlanned = false
  /// Planned answers of an earlier run that start-up rescheduled, delivered late or dropped.
  public var resumedPlans: [ResumedPlan] = []
  /// Whether no other susi was running on the log at start: only then were planned answers that
  /// came due missed because no susi was running.
  public var startedAlone = true
  /// The seq to follow the log from (what start-up logged after it is shown too: planned
  /// answers delivered late); nil = from the session's start.
  public var followFrom: Int?
  /// Where the server in use at start came from (hints name it; `/server URL` remembers).
  public var serverSource: ServerSource = .builtIn
  /// Where `/server URL` remembers the choice (`STATE-DIR`); nil = it is not remembered.
  public var stateDirectory: String?
  /// The time now, for when planned answers are due.
  public var now: @Sendable () -> Timestamp = {
    Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
  }
}
