public import SusiCore
import SusiCrypto
import SusiEventLog
public import SusiPostgres
public import SusiStore
import Synchronization

/// The store's sink on a log in PostgreSQL, shared by every node that appends to it; see
/// `PostgresEventLog` for the table and how appends keep seqs gap-free.
public final class PostgresEventSink: EventSink {
  public let location: PostgresLogLocation
  /// The connection appends (and catching up) go through, and the group being appended.
  private let appender: Mutex<Appender>
  /// The seq of the last record this sink has handed to the store (its own or another node's).
  private let known: Atomic<Int>
  /// Reads past events on a connection of its own.
  private let reader: PostgresHistory
  /// Whether appends wait for `commit()` (see `commitsInGroups`).
  public let groupCommit: Bool
  /// This node's number, when it holds its node lock: the intents it appends are recorded as
  /// its own in `susi_log_owners` (see `PostgresTakeover`).
  public let node: Int?

  /// The append connection, and the transaction a group is appended in.
  private struct Appender {
    var connection: PostgresConnection?
    /// True from a group's first append to its commit: the transaction holds the append lock.
    var inTransaction = false
    /// The group's records, inserted when it commits.
    var pending: [(seq: Int, event: Event, line: [UInt8])] = []
  }

  /// Appends to the log at `location` through `connection` (from `PostgresEventLog.connect`),
  /// continuing after `lastSeq`, the last record the store has applied.
  ///
  /// - Parameter groupCommit: true lets appends share one transaction: the first append of a
  ///   group takes the log's append lock and reads what other nodes appended, the ones after it
  ///   add their records, and `commit()` inserts them all and commits once. False commits every
  ///   append on its own before it returns.
  public init(
    location: PostgresLogLocation, connection: sending PostgresConnection, lastSeq: Int,
    groupCommit: Bool = true, node: Int? = nil
  ) {
    self.location = location
    self.node = node
    appender = Mutex(Appender(connection: connection))
    known = Atomic(lastSeq)
    reader = PostgresHistory(location: location)
    self.groupCommit = groupCommit
  }

  /// The seq of the last record handed to the store.
  public var lastSeq: Int { known.load(ordering: .acquiring) }

  public var commitsInGroups: Bool { groupCommit }

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
    try appendInGroup { others, seq throws -> (line: [UInt8], event: Event) in
      let line = EventLogWriter.line(for: try makeRecord(others))
      try PostgresEventLog.check(line, seq: seq, location: location)
      let event: Event
      do {
        event = try Event.read(logLine: line)
      } catch {
        throw PostgresLogError.corrupt(location, seq: seq, "the record is not an event: \(error)")
      }
      guard event.seq == seq else {
        throw PostgresLogError.corrupt(
          location, seq: seq, "the record has seq \(event.seq) but the log's next seq is \(seq)")
      }
      return (line, event)
    }
  }

  /// Like `append(after:)`, but the event's columns come from the event itself: its line is
  /// not read back (the encoder made it, so it is a record with the event's seq).
  public func appendEvent(after makeEvent: (_ appendedByOthers: [[UInt8]]) throws -> Event) throws
    -> [UInt8]
  {
    try appendInGroup { others, seq throws -> (line: [UInt8], event: Event) in
      let event = try makeEvent(others)
      guard event.seq == seq else {
        throw PostgresLogError.corrupt(
          location, seq: seq, "the event has seq \(event.seq) but the log's next seq is \(seq)")
      }
      return (EventLogWriter.line(for: event.encoded()), event)
    }
  }

  /// Appends the record `make` returns for the next seq to the group, opening the group (its
  /// transaction, the append lock, and what other nodes appended) when none is open.
  private func appendInGroup(
    _ make: (_ appendedByOthers: [[UInt8]], _ seq: Int) throws -> (line: [UInt8], event: Event)
  ) throws -> [UInt8] {
    try appender.withLock { appender throws -> [UInt8] in
      guard let connection = appender.connection else {
        throw PostgresLogError.database(.init(.closed, "the log is closed"))
      }
      // On any failure the transaction ends: a group's records are lost with it (the store
      // fails), and a group that has none yet must not keep the lock.
      var keepTransaction = false
      defer {
        if !keepTransaction && appender.inTransaction {
          _ = try? connection.execute("ROLLBACK")
          appender.inTransaction = false
          appender.pending = []
        }
      }
      let lastSeen = known.load(ordering: .acquiring)
      var others: [(seq: Int, line: [UInt8])] = []
      if !appender.inTransaction {
        appender.inTransaction = true
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
      }
      // Holding the lock since the group began, nobody else has appended since.
      let seq = (others.last?.seq ?? lastSeen) + 1
      // `make` applies the others first, whatever it then decides (a duplicate key appends
      // nothing): they count as seen from here on.
      if let last = others.last { known.store(last.seq, ordering: .releasing) }
      let made: (line: [UInt8], event: Event)
      do {
        made = try make(others.map(\.line), seq)
      } catch let error as PostgresLogError {
        throw error
      } catch {
        // Nothing appended: the group goes on if it has records (the store commits them).
        keepTransaction = !appender.pending.isEmpty
        throw error
      }
      appender.pending.append((seq, made.event, made.line))
      if groupCommit {
        keepTransaction = true
      } else {
        try commit(&appender, on: connection)
      }
      known.store(seq, ordering: .releasing)
      return made.line
    }
  }

  /// Inserts the group's records and commits: one round trip, one commit.
  public func commit() throws {
    try appender.withLock { appender throws in
      guard appender.inTransaction else { return }
      guard let connection = appender.connection else {
        throw PostgresLogError.database(.init(.closed, "the log is closed"))
      }
      defer {
        if appender.inTransaction {
          _ = try? connection.execute("ROLLBACK")
          appender.inTransaction = false
          appender.pending = []
        }
      }
      try commit(&appender, on: connection)
    }
  }

  /// Inserts `appender.pending` and commits, notifying followers of the newest seq.
  private func commit(_ appender: inout Appender, on connection: PostgresConnection)
    throws(PostgresLogError)
  {
    let pending = appender.pending
    var statements: [(sql: String, parameters: [PostgresValue])] = [
      (
        "INSERT INTO \(location.table) (seq, at, origin, type, line) SELECT * FROM "
          + "unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::text[], $5::bytea[])",
        [
          .text(Self.arrayLiteral(pending.map { String($0.seq) })),
          .text(Self.arrayLiteral(pending.map { $0.event.at.rfc3339 })),
          .text(Self.arrayLiteral(pending.map { $0.event.origin.rawValue })),
          .text(Self.arrayLiteral(pending.map { $0.event.action.type.rawValue })),
          .bytes(Self.binaryByteaArray(pending.map(\.line))),
        ]
      )
    ]
    let intents = pending.filter { $0.event.cause == nil }.map(\.seq)
    if let node, !intents.isEmpty {
      statements.append(
        (
          "INSERT INTO susi_log_owners (log, seq, node) SELECT $1, unnest($2::bigint[]), $3",
          [
            .text(location.table),
            .text("{" + intents.map(String.init).joined(separator: ",") + "}"),
            .int(node),
          ]
        ))
    }
    if let newest = pending.last?.seq {
      statements.append(
        ("SELECT pg_notify($1, $2)", [.text(location.channel), .text(String(newest))]))
    }
    statements.append(("COMMIT", []))
    do {
      try connection.executePipeline(statements)
    } catch {
      throw .database(error)
    }
    appender.inTransaction = false
    appender.pending = []
  }

  public func appendedByOthers() throws -> [[UInt8]] {
    try appender.withLock { appender throws -> [[UInt8]] in
      // A group holds the append lock: nobody has appended since it read the others.
      guard let connection = appender.connection, !appender.inTransaction else { return [] }
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

  /// A commit is on the server's disk when it returns: nothing is left to force (the store
  /// commits a group before it syncs).
  public func sync() throws {}

  /// Closes the connection; a group not committed yet is rolled back with it.
  public func close() {
    appender.withLock { appender in
      appender.connection?.close()
      appender.connection = nil
      appender.inTransaction = false
      appender.pending = []
    }
    reader.close()
  }

  public var history: any EventHistory { reader }

  /// Whether the database answers: a round trip on the append connection.
  public func ping() -> Result<Void, PostgresError> {
    appender.withLock { appender in
      guard let connection = appender.connection else {
        return .failure(PostgresError(.closed, "the log is closed"))
      }
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

  /// A one-dimensional array in PostgreSQL's text form, each element quoted.
  static func arrayLiteral(_ elements: [String]) -> String {
    var literal = "{"
    for (index, element) in elements.enumerated() {
      if index > 0 { literal += "," }
      literal += "\""
      for character in element.unicodeScalars {
        if character == "\"" || character == "\\" { literal += "\\" }
        literal.unicodeScalars.append(character)
      }
      literal += "\""
    }
    return literal + "}"
  }

  /// A one-dimensional `bytea[]` in PostgreSQL's binary form (`array_recv`): the dimensions, the
  /// element type (`bytea`, oid 17), then each element's length and bytes, big-endian.
  static func binaryByteaArray(_ elements: [[UInt8]]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + $1.count })
    func int32(_ value: Int) {
      let value = UInt32(truncatingIfNeeded: value)
      bytes += [
        UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
        UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
      ]
    }
    int32(1)  // dimensions
    int32(0)  // no nulls
    int32(17)  // bytea
    int32(elements.count)
    int32(1)  // lower bound
    for element in elements {
      int32(element.count)
      bytes += element
    }
    return bytes
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
