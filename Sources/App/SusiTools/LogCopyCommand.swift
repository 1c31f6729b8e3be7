public import SusiCommandLine
import SusiPostgresLog

/// `susi log copy FROM TO`: copies an event log between a file and a database (either way),
/// line for line.
public enum LogCopyCommand {
  public static let spec = CommandSpec(
    name: "log", summary: "copy an event log between a file and PostgreSQL",
    usage: "log copy FROM TO",
    discussion: """
      Copies every record of the log FROM to the log TO, byte for byte: a file (a path) or a
      log in PostgreSQL (postgresql://…, with ?log=NAME to pick the table; the password comes
      from PGPASSFILE, ~/.pgpass or PGPASSWORD). Each record is checked (checksum, seq) as it is
      read. The copy is resumable: when TO already holds the first records of FROM (a copy that
      was interrupted, or a log that grew since), only the records after them are copied; TO's
      last record must then equal FROM's record with that seq, or nothing is copied. Records are
      written to a database in committed batches of 1,000, and a file is forced to disk at the
      end.

      Copy into a file no susi is using (the copy takes its lock). Copying into a database log
      other nodes append to is refused once their records differ from FROM's.
      """,
    examples: [
      "susi log copy ~/.local/state/susi/events.jsonl 'postgresql://db.example.org/susi'",
      "susi log copy 'postgresql:///susi?host=/run/postgresql' backup.jsonl",
    ],
    arguments: 3...3
  )
  .refusing([.server, .websearchURL, .fsync, .allowPrivateTargets])

  public static let command = Command(spec) { invocation in await run(invocation) }

  static func run(_ invocation: Invocation) async -> Int32 {
    let arguments = invocation.arguments
    guard arguments[0] == "copy" else {
      StandardStream.error.write(
        "susi log: unknown action '\(arguments[0])'; the one action is copy\n"
          + "\(HelpText.usageLine(spec))\n")
      return ExitCode.usage
    }
    do {
      let done = try LogCopy.run(from: arguments[1], to: arguments[2])
      if done.copied == 0 {
        StandardStream.output.line(
          "nothing to copy: \(done.target) already holds all \(done.last) events of \(done.source)")
      } else {
        StandardStream.output.line(
          "copied \(done.copied) events (seq \(done.first)…\(done.last)) from \(done.source) to \(done.target)"
        )
      }
      return ExitCode.success
    } catch let failure as LogCopy.Failure {
      StandardStream.error.line("susi log copy: \(failure)")
      return exitCode(failure.kind)
    } catch {
      StandardStream.error.line("susi log copy: \(error)")
      return ExitCode.software
    }
  }

  static func exitCode(_ kind: LogCopy.Failure.Kind) -> Int32 {
    switch kind {
    case .usage: ExitCode.usage
    case .noInput: ExitCode.noInput
    case .corrupt: ExitCode.dataError
    case .io: ExitCode.ioError
    case .unavailable: ExitCode.unavailable
    case .cannotCreate: ExitCode.cannotCreate
    case .software: ExitCode.software
    }
  }
}
