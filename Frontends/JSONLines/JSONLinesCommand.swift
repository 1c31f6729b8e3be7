import Dispatch
import SusiApplication
public import SusiCommandLine
public import SusiStore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `susi jsonl`: the command-line face of `JSONLinesSession`.
public enum JSONLinesCommand {
  /// The command's words, options and help.
  public static let spec = CommandSpec(
    name: "jsonl",
    summary: "for programs: actions in on stdin, events out on stdout, one JSON object per line",
    usage: "jsonl [--replay-first] [--no-wait] [--drain-timeout SECONDS] [--allow-admin]",
    discussion: """
      Each input line is one intent: {"type":"sendMessage","payload":{"query":"hi"},"id":1}.
      `payload` may be left out when the intent has no required fields; `id` is any JSON value
      and is optional. Each event susi logs is written to stdout as its exact log line; events
      caused by a line carry that line's id. A line that is not a valid intent gets one line
      {"id":…,"error":{"code":"…","message":"…","line":N}} and changes nothing; the stream goes
      on. Error codes: invalid_json, invalid_utf8, line_too_long (over 1 MiB), not_an_object,
      invalid_request, unknown_type, result_type, invalid_payload, log_failed, admin_only.

      Access changes (createAccessGroup, grantPrivilege, revokePrivilege, issueKey, revokeKey)
      are refused with admin_only unless --allow-admin is given; then they are recorded as done
      by `local`, and their payload leaves out `by`.

      Only JSON lines go to stdout, each written and flushed whole; messages for people go to
      stderr. At the end of input, or on SIGTERM, susi waits for the answers its requests are
      owed now (at most --drain-timeout seconds), then exits 0; answers planned for later (a
      reminder) stay in the log for whichever susi runs when they are due. --no-wait exits at
      once, after writing what has already arrived.
      """,
    examples: [
      #"printf '%s\n' '{"type":"sendMessage","payload":{"query":"hello"},"id":1}' | susi jsonl"#,
      #"susi jsonl --replay-first < actions.jsonl | jq -c 'select(.type=="messageReceived")'"#,
      #"echo '{"type":"loadGroups"}' | susi jsonl --no-wait"#,
    ],
    options: [
      OptionSpec(
        .replayFirst, help: "first print the current state as {\"state\":{…},\"seq\":N}"),
      OptionSpec(.noWait, help: "exit at the end of input without waiting for answers"),
      OptionSpec(
        .drainTimeout, value: "SECONDS",
        help: "longest wait for answers at the end of input or on SIGTERM (default: 30)"),
      OptionSpec(
        .allowAdmin,
        help: "take access changes (keys, groups, privileges), recorded as done by `local`"),
    ])

  /// `susi jsonl` for the command table: starts susi (log, state, runner, built-in server),
  /// runs a session over stdin and stdout, and stops.
  public static let command = Command(spec) { invocation in
    let options: JSONLinesOptions
    do throws(UsageError) {
      options = try Self.options(invocation.parsed)
    } catch {
      return error.report(spec)
    }
    let app: SusiApp
    do throws(StartupError) {
      app = try await SusiApp.start(
        invocation.common, origin: options.origin, environment: invocation.environment)
    } catch {
      StandardStream.error.line("susi jsonl: \(error)")
      return error.exitCode
    }
    for warning in app.warnings { StandardStream.error.line("susi jsonl: \(warning)") }
    let code = await run(store: app.store, options: options, startupEvents: app.startupEvents)
    await app.stop()
    return code
  }

  /// The session options a command line asks for.
  public static func options(_ parsed: ParsedCommandLine) throws(UsageError) -> JSONLinesOptions {
    var options = JSONLinesOptions()
    options.replayFirst = parsed.has(.replayFirst)
    options.waitForEffects = !parsed.has(.noWait)
    options.allowsAdministration = parsed.has(.allowAdmin)
    if let text = parsed.value(.drainTimeout) {
      guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
        throw UsageError("--drain-timeout takes a number of seconds from 0 to 86400, not '\(text)'")
      }
      options.drainTimeout = seconds
    }
    return options
  }

  /// Runs a session over stdin and stdout against `store` until the input ends or SIGTERM
  /// (or SIGINT) arrives, and returns the exit code. The caller closes the store.
  ///
  /// The first signal stops taking input and drains; a second one exits at once (the log stays
  /// readable: a torn last line is cut back on the next start).
  public static func run(
    store: Store, options: JSONLinesOptions, startupEvents: [PublishedEvent] = []
  ) async -> Int32 {
    StandardStream.ignoreBrokenPipes()
    let session = JSONLinesSession(
      store: store, input: FileDescriptorInput.standardInput,
      output: FileDescriptorOutput.standardOutput, options: options, startupEvents: startupEvents)
    let signals = ShutdownSignal()
    let stopper = Task {
      guard await signals.wait() != nil else { return }
      StandardStream.error.line(
        "susi jsonl: stopping; waiting for answers in flight (signal again to quit now)")
      session.stop()
    }
    let summary = await session.run()
    stopper.cancel()
    return exitCode(summary)
  }

  /// 0 when every line was answered and recorded; 74 (I/O error) when input could not be read,
  /// output could not be written or the log refused an action.
  public static func exitCode(_ summary: JSONLinesSummary) -> Int32 {
    summary.succeeded ? ExitCode.success : ExitCode.ioError
  }
}
