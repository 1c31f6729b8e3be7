import Foundation
import SusiCore
import SusiEventLog
import SusiPostgres

/// Copies an event log between a file and a log in PostgreSQL (either way), record for record
/// and byte for byte. Each record is checked as it is read; the copy is resumable: when the
/// target already holds the first records of the source, only the ones after them are copied,
/// and only if the target's last record equals the source's record with that seq.
public enum LogCopy {
  /// Why a copy stopped, and what kind of problem it was.
  public struct Failure: Error, CustomStringConvertible {
    public enum Kind: Sendable {
      /// A database address that is not one.
      case usage
      /// No source log.
      case noInput
      /// A damaged record, or two logs that are not copies of each other.
      case corrupt
      /// Reading or writing failed.
      case io
      /// The database could not be reached.
      case unavailable
      /// The target file is in the way (locked by a running susi).
      case cannotCreate
      /// A record did not come out byte for byte (a bug).
      case software
    }
    public var description: String
    public var kind: Kind

    init(_ description: String, kind: Kind) {
      self.description = description
      self.kind = kind
    }
  }

  /// What a copy did.
  public struct Outcome: Sendable {
    /// How many records were copied.
    public var copied: Int
    /// The first and last seq copied (or the last seq both hold when nothing was).
    public var first: Int
    public var last: Int
    /// How the two logs are named in messages.
    public var source: String
    public var target: String
  }

  /// Copies what the log `to` (a path, or a `postgresql://` location) lacks from the log `from`.
  public static func run(from: String, to: String) throws -> Outcome {
    let source = try Side.open(from, writing: false)
    let target = try Side.open(to, writing: true)
    defer {
      source.close()
      target.close()
    }
    let (copied, first, last) = try copy(from: source, to: target)
    return Outcome(
      copied: copied, first: first, last: last, source: source.name, target: target.name)
  }

  /// Copies what `target` lacks; returns how many records, and the first and last seq copied (or
  /// the last seq both hold when nothing was).
  static func copy(from source: Side, to target: Side) throws -> (Int, Int, Int) {
    let held = try target.last()
    if let held {
      guard let same = try source.line(at: held.seq) else {
        throw Failure(
          "\(target.name) holds \(held.seq) events but \(source.name) has no event \(held.seq); "
            + "it is not a copy of it",
          kind: .corrupt)
      }
      guard same == held.line else {
        throw Failure(
          "\(target.name) and \(source.name) differ at seq \(held.seq): they are different "
            + "logs; nothing was copied",
          kind: .corrupt)
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
            "\(error)",
            kind: error.kind == .invalidURI ? .usage : .unavailable)
        }
      }
      if !writing {
        guard FileManager.default.fileExists(atPath: text) else {
          throw Failure("no log at \(text)", kind: .noInput)
        }
        return .file(path: text, writer: nil)
      }
      do {
        // Takes the log's lock (refused while a susi uses it) and cuts a torn tail.
        let writer = try EventLogWriter(path: text, options: .init(fsync: .batch, firstSeq: nil))
        return .file(path: text, writer: writer)
      } catch {
        throw Failure(
          "\(error)",
          kind: error.isCorruption ? .corrupt : .cannotCreate)
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
            "\(error)",
            kind: error.isCorruption ? .corrupt : .io)
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
              "seq \(seq) is a version 1 record, which a file log cannot take byte for byte; "
                + "nothing after seq \(seq - 1) was copied to \(path)",
              kind: .corrupt)
          }
          // The record without its checksum member; the writer adds the same checksum back.
          let object = Array(line[0..<(line.count - 18)]) + [UInt8(ascii: "}")]
          let written: [UInt8]
          do {
            written = try writer.appendLine(object)
          } catch {
            throw Failure("\(error)", kind: .io)
          }
          guard written == line else {
            throw Failure(
              "seq \(seq) did not come out byte for byte; stopped after it",
              kind: .software)
          }
        }
      case .database(let location, let connection):
        var statements: [(sql: String, parameters: [PostgresValue])] = []
        for (seq, line) in lines {
          let event: Event
          do {
            event = try Event.decode(line)
          } catch {
            throw Failure("seq \(seq) is not an event: \(error)", kind: .corrupt)
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
        throw Failure("\(error)", kind: .io)
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
          "\(error)",
          kind: error.isCorruption ? .corrupt : .io)
      }
    }

    private func databaseCall<T>(_ body: () throws -> T) throws -> T {
      do { return try body() } catch let error as PostgresError {
        throw Failure("\(error)", kind: .io)
      }
    }
  }
}
