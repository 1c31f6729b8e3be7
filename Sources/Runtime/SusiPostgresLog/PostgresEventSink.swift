import SusiCore
import SusiCrypto
import SusiEventLog
public import SusiPostgres
public import SusiStore
import Synchronization

/// The store's sink on a log in PostgreSQL, shared by every node that appends to it; see
/// `PostgresEventLog` for the table and how appends keep seqs gap-free.
public final class PostgresEventSink: EventSink {
  public let location: PostgresLogLocation
  /// The connection appends (and catching up) go through.
  private let connection: Mutex<PostgresConnection?>
  /// The seq of the last record this sink has handed to the store (its own or another node's).
  private let known: Atomic<Int>
  /// Reads past events on a connection of its own.
  private let reader: PostgresHistory

  /// Appends to the log at `location` through `connection` (from `PostgresEventLog.connect`),
  /// continuing after `lastSeq`, the last record the store has applied.
  public init(location: PostgresLogLocation, connection: sending PostgresConnection, lastSeq: Int) {
    self.location = location
    self.connection = Mutex(connection)
    known = Atomic(lastSeq)
    reader = PostgresHistory(location: location)
  }

  /// The seq of the last record handed to the store.
  public var lastSeq: Int { known.load(ordering: .acquiring) }

  public func append(_ record: [UInt8]) throws -> [UInt8] {
    try append { others in
      guard others.isEmpty else {
        throw PostgresLogError.database(
          PostgresError(.query, "another node appended first; the record's seq is taken"))
      }
      return record
    }
  }

  public func append(after makeRecord: (_ appendedByOthers: [[UInt8]]) throws -> [UInt8]) throws
    -> [UInt8]
  {
    try connection.withLock { connection throws -> [UInt8] in
      guard let connection else {
        throw PostgresLogError.database(.init(.closed, "the log is closed"))
      }
      let lastSeen = known.load(ordering: .acquiring)
      var committed = false
      defer { if !committed { _ = try? connection.execute("ROLLBACK") } }
      let others: [(seq: Int, line: [UInt8])]
      do {
        let result = try connection.execute(
          """
          BEGIN;
          \(PostgresEventLog.appendLockStatement(location));
          SELECT seq, line FROM \(location.table) WHERE seq > \(lastSeen) ORDER BY seq
          """)
        others = try PostgresEventLog.checkedRows(
          try Self.binaryRows(fromText: result), after: lastSeen, location: location)
      } catch let error as PostgresError {
        throw PostgresLogError.database(error)
      }
      let seq = (others.last?.seq ?? lastSeen) + 1
      // `makeRecord` applies the others first, whatever it then decides (a duplicate key
      // appends nothing): they count as seen from here on.
      if let last = others.last { known.store(last.seq, ordering: .releasing) }
      let record = try makeRecord(others.map(\.line))
      let line = EventLogWriter.line(for: record)
      try PostgresEventLog.check(line, seq: seq, location: location)
      let event: Event
      do {
        event = try Event.decode(line)
      } catch {
        throw PostgresLogError.corrupt(location, seq: seq, "the record is not an event: \(error)")
      }
      guard event.seq == seq else {
        throw PostgresLogError.corrupt(
          location, seq: seq, "the record has seq \(event.seq) but the log's next seq is \(seq)")
      }
      do throws(PostgresError) {
        try connection.executePipeline([
          (
            "INSERT INTO \(location.table) (seq, at, origin, type, line) "
              + "VALUES ($1, $2::timestamptz, $3, $4, $5)",
            [
              .int(seq), .text(event.at.rfc3339), .text(event.origin.rawValue),
              .text(event.action.type.rawValue), .bytes(line),
            ]
          ),
          ("SELECT pg_notify($1, $2)", [.text(location.channel), .text(String(seq))]),
          ("COMMIT", []),
        ])
      } catch {
        throw PostgresLogError.database(error)
      }
      committed = true
      known.store(seq, ordering: .releasing)
      return line
    }
  }

  public func appendedByOthers() throws -> [[UInt8]] {
    try connection.withLock { connection throws -> [[UInt8]] in
      guard let connection else { return [] }
      var lines: [[UInt8]] = []
      while true {
        let after = known.load(ordering: .acquiring)
        let rows = try PostgresEventLog.lines(after: after, location: location, on: connection)
        lines += rows.map(\.line)
        if let last = rows.last { known.store(last.seq, ordering: .releasing) }
        if rows.count < PostgresEventLog.batch { return lines }
      }
    }
  }

  /// Every append is committed before it returns: nothing is left to force.
  public func sync() throws {}

  public func close() {
    connection.withLock { connection in
      connection?.close()
      connection = nil
    }
    reader.close()
  }

  public var history: any EventHistory { reader }

  /// Whether the database answers: a round trip on the append connection.
  public func ping() -> Result<Void, PostgresError> {
    connection.withLock { connection in
      guard let connection else { return .failure(PostgresError(.closed, "the log is closed")) }
      do throws(PostgresError) {
        try connection.execute("SELECT 1")
        return .success(())
      } catch {
        return .failure(error)
      }
    }
  }

  /// A text result's `bytea` cells (`\x` and hex digits) turned into their bytes, and its seqs
  /// into 8-byte big-endian integers, so it reads like a binary result.
  static func binaryRows(fromText result: PostgresResult) throws(PostgresError) -> PostgresResult {
    var converted = PostgresResult(rows: [], binary: true, affected: result.affected)
    converted.rows.reserveCapacity(result.count)
    for row in 0..<result.count {
      guard let seq = result.int(row, 0), let hex = result.bytes(row, 1),
        let bytes = Self.decodeHex(bytea: hex)
      else {
        throw PostgresError(.query, "a row of the log is not a (seq, line) pair")
      }
      var seqBytes: [UInt8] = []
      for shift in stride(from: 56, through: 0, by: -8) {
        seqBytes.append(UInt8(truncatingIfNeeded: seq >> shift))
      }
      converted.rows.append([seqBytes, bytes])
    }
    return converted
  }

  /// The bytes of a `bytea` in PostgreSQL's hex output format (`\x4a6b…`).
  static func decodeHex(bytea: [UInt8]) -> [UInt8]? {
    guard bytea.count >= 2, bytea[0] == UInt8(ascii: "\\"), bytea[1] == UInt8(ascii: "x") else {
      return nil
    }
    return ByteEncoding.hexDecode(bytea[2...])
  }
}

/// Reads past events back from the log's table, on a connection of its own (opened on first
/// use, reopened after a failure).
public final class PostgresHistory: EventHistory {
  public let location: PostgresLogLocation
  private let connection = Mutex<PostgresConnection?>(nil)

  public init(location: PostgresLogLocation) { self.location = location }

  public func events(after seq: Int, limit: Int) throws(HistoryError) -> [PublishedEvent] {
    guard limit > 0 else { return [] }
    let rows: [(seq: Int, line: [UInt8])]
    do {
      rows = try connection.withLock { connection throws -> [(seq: Int, line: [UInt8])] in
        if connection == nil || connection?.isHealthy == false {
          connection = try PostgresConnection(location.database)
        }
        guard let open = connection else { return [] }
        do throws(PostgresLogError) {
          return try PostgresEventLog.lines(
            after: seq, limit: min(limit, PostgresEventLog.batch), location: location, on: open)
        } catch {
          if case .database = error { connection = nil }
          throw error
        }
      }
    } catch {
      throw HistoryError("cannot read the log \(location): \(error)")
    }
    return try rows.map { row throws(HistoryError) in try PublishedEvent(line: row.line) }
  }

  func close() {
    connection.withLock { connection in
      connection?.close()
      connection = nil
    }
  }
}
