import Foundation

/// `susi server`'s work once its command line is read: starts the server, prints exactly one
/// line, the base URL, on `output` once listening (diagnostics go to `errors`), serves until
/// `stopRequested` returns, then shuts down gracefully.
public enum ServerForeground {
  /// Runs the server; returns the exit status (0, or 1 when it could not start).
  public static func run(
    _ configuration: ServerConfiguration,
    output: @Sendable (String) -> Void, errors: @escaping @Sendable (String) -> Void,
    until stopRequested: () async -> Void
  ) async -> Int32 {
    var configuration = configuration
    if configuration.ruleWarnings == nil {
      configuration.ruleWarnings = { errors("susi server: warning: \($0)\n") }
    }
    let server: EmbeddedServer
    do {
      server = try await EmbeddedServer.start(configuration)
    } catch {
      errors("susi server: cannot start: \(error)\n")
      return 1
    }
    for warning in server.handler.loadWarnings { errors("susi server: warning: \(warning)\n") }
    errors(
      "susi server: \(server.handler.library.skills.count) skills loaded; state in \(configuration.stateDirectory?.path ?? "memory")\n"
    )
    output(server.baseURLString + "\n")
    await stopRequested()
    errors("susi server: shutting down\n")
    await server.stop()
    return 0
  }
}
