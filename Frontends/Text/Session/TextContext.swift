/// What a text session knows about the program around it.
public struct TextContext: Sendable {
  /// The event log this run appends to.
  public var logPath: String
  /// Where the built-in server listens, when it is the one in use.
  public var embeddedServerURL: String?
  /// How many events were replayed from the log at start (0 for a new log).
  public var resumedEvents: Int
  /// A file holding the password (`--password-file`), read instead of asking.
  public var passwordFile: String?
  /// Leaves the program at once with this exit code, in order (echo restored, log closed).
  public var terminate: @Sendable (Int32) async -> Void

  public init(
    logPath: String, embeddedServerURL: String? = nil, resumedEvents: Int = 0,
    passwordFile: String? = nil,
    terminate: @escaping @Sendable (Int32) async -> Void
  ) {
    self.logPath = logPath
    self.embeddedServerURL = embeddedServerURL
    self.resumedEvents = resumedEvents
    self.passwordFile = passwordFile
    self.terminate = terminate
  }
}
