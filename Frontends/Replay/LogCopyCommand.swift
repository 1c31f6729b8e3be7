import Foundation
public import SusiCommandLine
import SusiCore
import SusiEventLog
import SusiPostgres
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
  .refusing(["--server", "--websearch-url", "--fsync", "--allow-private-targets"])

  public static let command = Command(spec) { invocation in await run(invocation) }

  /// Why a copy stopped.
  struct Failure: Error, CustomStringConvertible {
    var description: String
    var exitCode: Int32
  }

  static func run(_ invocation: Invocation) async -> Int32 {
    let arguments = invocation.arguments
    guard arguments[0] == "copy" else {
      StandardStream.error.write(
        "susi log: unknown action '\(arguments[0])'; the one action is copy\n"
          + "\(HelpText.usageLine(spec))\n")
      return ExitCode.usage
    }
    do {
      let source = try Side.open(arguments[1], writing: false)
      let target = try Side.open(arguments[2], writing: true)
      defer {
        source.close()
        target.close()
      }
      let (copied, from, to) = try copy(from: source, to: target)
      if copied == 0 {
        StandardStream.output.line(
          "nothing to copy: \(target.name) already holds all \(to) events of \(source.name)")
      } else {
        StandardStream.output.line(
          "copied \(copied) events (seq \(from)…\(to)) from \(source.name) to \(target.name)")
      }
      return ExitCode.success
    } catch let failure as Failure {
      StandardStream.error.line("susi log copy: \(failure)")
      return failure.exitCode
    } catch {
      StandardStream.error.line("susi log copy: \(error)")
      return ExitCode.software
    }
  }

  /// Copies what `target` lacks; returns how many records, and the first and last seq copied (or
  /// the last seq both hold when nothing was).
  static func copy(from source: Side, to target: Side) throws -> (Int, Int, Int) {
    let held = try target.last()
    if let held {
      guard let same = try source.line(at: held.seq) else {
        throw Failure(
          description:
            "\(target.name) holds \(held.seq) events but \(source.name) has no event \(held.seq); "
            + "it is not a copy of it",
          exitCode: ExitCode.dataError)
      }
      guard same == held.line else {
        throw Failure(
          description:
            "\(target.name) and \(source.name) differ at seq \(held.seq): they are different "
            + "logs; nothing was copied",
          exitCode: ExitCode.dataError)
      }
    }
    var after = held?.seq ?? 0
    let first = after + 1
    var copied = 0
    try source.batches(after: after, size: 1000) { lines in
      try target.append(lines, after: after)
      copied += lines.count
      after = lines.last?.seq ?? after
    }
    try target.finish()
    return (copied, first, after)
  }

  /// One end of a copy: a file log or a database log.
  enum Side {
    case file(path: String, writer: EventLogWriter?)
    case database(PostgresLogLocation, PostgresConnection)

    static func open(_ text: String, writing: Bool) throws -> Side {
      if PostgresLogLocation.isLocation(text) {
        do {
          let location = try PostgresLogLocation(text)
          let connection =
            writing
            ? try PostgresEventLog.connect(location) : try PostgresConnection(location.database)
          return .database(location, connection)
        } catch {
          throw Failure(
            description: "\(error)",
            exitCode: error.kind == .invalidURI ? ExitCode.usage : ExitCode.unavailable)
        }
      }
      if !writing {
        guard FileManager.default.fileExists(atPath: text) else {
          throw Failure(description: "no log at \(text)", exitCode: ExitCode.noInput)
        }
        return .file(path: text, writer: nil)
      }
      do {
        // Takes the log's lock (refused while a susi uses it) and cuts a torn tail.
        let writer = try EventLogWriter(path: text, options: .init(fsync: .batch, firstSeq: nil))
        return .file(path: text, writer: writer)
      } catch {
        throw Failure(
          description: "\(error)",
          exitCode: error.isCorruption ? ExitCode.dataError : ExitCode.cannotCreate)
      }
    }

    var name: String {
      switch self {
      case .file(let path, _): path
      case .database(let location, _): location.description
      }
    }

    /// The last record held, if any.
    func last() throws -> (seq: Int, line: [UInt8])? {
      switch self {
      case .file(let path, _):
        var last: (seq: Int, line: [UInt8])?
        try forEachFileLine(path, after: 0) { seq, line in
          last = (seq, line)
          return true
        }
        return last
      case .database(let location, let connection):
        let result = try databaseCall {
          try connection.execute(
            "SELECT seq FROM \(location.table) ORDER BY seq DESC LIMIT 1", binaryResult: true)
        }
        guard result.count == 1, let seq = result.int(0, 0) else { return nil }
        return try line(at: seq).map { (seq, $0) }
      }
    }

    /// The line of the record `seq`, if the log holds it.
    func line(at seq: Int) throws -> [UInt8]? {
      let found = try lines(after: seq - 1, limit: 1)
      return found.first?.seq == seq ? found.first?.line : nil
    }

    /// Up to `limit` records after `seq`, checked.
    func lines(after seq: Int, limit: Int) throws -> [(seq: Int, line: [UInt8])] {
      switch self {
      case .file(let path, _):
        var found: [(seq: Int, line: [UInt8])] = []
        try forEachFileLine(path, after: seq) { recordSeq, line in
          found.append((recordSeq, line))
          return found.count < limit
        }
        return found
      case .database(let location, let connection):
        do {
          return try PostgresEventLog.lines(
            after: seq, limit: limit, location: location, on: connection)
        } catch {
          throw Failure(
            description: "\(error)",
            exitCode: error.isCorruption ? ExitCode.dataError : ExitCode.ioError)
        }
      }
    }

    /// Calls `body` with the records after `seq`, in order, `size` at a time (one pass over a
    /// file).
    func batches(
      after seq: Int, size: Int, _ body: ([(seq: Int, line: [UInt8])]) throws -> Void
    ) throws {
      switch self {
      case .file(let path, _):
        var batch: [(seq: Int, line: [UInt8])] = []
        try forEachFileLine(path, after: seq) { recordSeq, line in
          batch.append((recordSeq, line))
          if batch.count == size {
            try body(batch)
            batch.removeAll(keepingCapacity: true)
          }
          return true
        }
        if !batch.isEmpty { try body(batch) }
      case .database:
        var after = seq
        while true {
          let lines = try lines(after: after, limit: size)
          if lines.isEmpty { return }
          try body(lines)
          after = lines[lines.count - 1].seq
        }
      }
    }

    /// Appends `lines`, which follow the record `after`.
    func append(_ lines: [(seq: Int, line: [UInt8])], after: Int) throws {
      switch self {
      case .file(let path, let writer):
        guard let writer else { return }
        for (seq, line) in lines {
          guard line.starts(with: Array(#"{"v":2,"#.utf8)), line.count > 18 else {
            throw Failure(
              description:
                "seq \(seq) is a version 1 record, which a file log cannot take byte for byte; "
                + "nothing after seq \(seq - 1) was copied to \(path)",
              exitCode: ExitCode.dataError)
          }
          // The record without its checksum member; the writer adds the same checksum back.
          let object = Array(line[0..<(line.count - 18)]) + [UInt8(ascii: "}")]
          let written: [UInt8]
          do {
            written = try writer.appendLine(object)
          } catch {
            throw Failure(description: "\(error)", exitCode: ExitCode.ioError)
          }
          guard written == line else {
            throw Failure(
              description: "seq \(seq) did not come out byte for byte; stopped after it",
              exitCode: ExitCode.software)
          }
        }
      case .database(let location, let connection):
        var statements: [(sql: String, parameters: [PostgresValue])] = []
        for (seq, line) in lines {
          let event: Event
          do {
            event = try Event.decode(line)
          } catch {
            throw Failure(
              description: "seq \(seq) is not an event: \(error)", exitCode: ExitCode.dataError)
          }
          statements.append(
            (
              "INSERT INTO \(location.table) (seq, at, origin, type, line) "
                + "VALUES ($1, $2::timestamptz, $3, $4, $5)",
              [
                .int(seq), .text(event.at.rfc3339), .text(event.origin.rawValue),
                .text(event.action.type.rawValue), .bytes(line),
              ]
            ))
        }
        statements.append(
          ("SELECT pg_notify($1, $2)", [.text(location.channel), .text(String(lines.last!.seq))]))
        statements.append(("COMMIT", []))
        try databaseCall {
          // Under the log's append lock, and only if nothing was appended meanwhile.
          try connection.execute("BEGIN")
          do {
            try connection.execute(PostgresEventLog.appendLockStatement(location))
            let top = try connection.execute(
              "SELECT coalesce(max(seq), 0) FROM \(location.table)")
            guard top.int(0, 0) == after else {
              throw PostgresError(
                .query,
                "the log changed while copying (it now ends at seq \(top.int(0, 0) ?? -1)); "
                  + "run the copy again")
            }
            try connection.executePipeline(statements)
          } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
          }
        }
      }
    }

    /// Forces a file target to disk.
    func finish() throws {
      guard case .file(_, let writer?) = self else { return }
      do { try writer.sync() } catch {
        throw Failure(description: "\(error)", exitCode: ExitCode.ioError)
      }
    }

    func close() {
      switch self {
      case .file(_, let writer): try? writer?.close()
      case .database(_, let connection): connection.close()
      }
    }

    /// Calls `body` with each record after `seq` (its seq and exact line) until it returns false.
    private func forEachFileLine(
      _ path: String, after seq: Int, _ body: (Int, [UInt8]) throws -> Bool
    ) throws {
      struct Enough: Error {}
      do {
        let reader = try EventLogReader(path: path, firstSeq: nil)
        defer { reader.close() }
        try reader.forEachRecord { record in
          guard record.seq > seq else { return }
          if try !body(record.seq, record.logLine) { throw Enough() }
        }
      } catch is Enough {
      } catch let error as EventLogError {
        throw Failure(
          description: "\(error)",
          exitCode: error.isCorruption ? ExitCode.dataError : ExitCode.ioError)
      }
    }

    private func databaseCall<T>(_ body: () throws -> T) throws -> T {
      do { return try body() } catch let error as PostgresError {
        throw Failure(description: "\(error)", exitCode: ExitCode.ioError)
      }
    }
  }
}
