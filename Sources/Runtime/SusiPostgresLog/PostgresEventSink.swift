public import SusiCore
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
  /// A seq through which the log is known to be on the server's disk: this node waited for it,
  /// or another node notified it after waiting (see `PostgresEventLog`).
  private let flushed: Atomic<Int>
  /// Reads past events on a connection of its own.
  private let reader: PostgresHistory
  /// Whether appends wait for `commit()` (see `commitsInGroups`).
  public let groupCommit: Bool
  /// The statements appends run, prepared once on the append connection.
  private let statements: Statements
  /// This node's number, when it holds its node lock: the intents it appends are recorded as
  /// its own in `susi_log_owners` (see `PostgresTakeover`).
  public let node: Int?

  /// The statements of a group: reading what others appended since a seq, the one statement
  /// that inserts a group's records and its intents' owner, and the notification to followers.
  struct Statements: Sendable {
    /// The records after `$1`, in order. Prepared like the others, its plan is made once,
    /// without the parameter's value: one made while the log was small would scan the whole
    /// table for as long as it is kept, so the append connection turns sequential scans off
    /// (it only ever reads the log by seq).
    let appendedAfter: String
    let insertGroup: String
    /// The log's append lock, for a transaction whose commit does not wait for the disk (so the
    /// lock is free at once; `commit(_:on:)` waits after it).
    let lockNotWaitingForTheDisk: String
    let notify = "SELECT pg_notify($1, $2)"

    init(_ location: PostgresLogLocation) {
      appendedAfter = "SELECT seq, line FROM \(location.table) WHERE seq > $1 ORDER BY seq"
      lockNotWaitingForTheDisk =
        PostgresEventLog.appendLockStatement(location)
        + ", set_config('synchronous_commit', 'off', true)"
      insertGroup = """
        WITH appended AS (
          INSERT INTO \(location.table) (seq, at, origin, type, line)
          SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::text[],
            $5::bytea[]))
        INSERT INTO susi_log_owners (log, seq, node)
        SELECT $6::text, unnest($7::bigint[]), $8::bigint
        """
    }
  }

  /// The append connection, and the transaction a group is appended in.
  private struct Appender {
    var connection: PostgresConnection?
    /// True once the connection is set up for appends (see `Statements.appendedAfter`).
    var configured = false
    /// True from a group's first append to its commit: the transaction holds the append lock.
    var inTransaction = false
    /// The group's records, inserted when it commits.
    var pending: [(seq: Int, event: Event, line: [UInt8])] = []
  }

  /// Appends to the log at `location` through `connection` (from `PostgresEventLog.connect`),
  /// continuing after `lastSeq`, the last record the store has applied, which must be on the
  /// server's disk (`PostgresLogRecovery.open` waits for that).
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
    statements = Statements(location)
    appender = Mutex(Appender(connection: connection))
    known = Atomic(lastSeq)
    flushed = Atomic(lastSeq)
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
        if !appender.configured {
          do {
            try connection.execute("SET enable_seqscan TO off")
          } catch let error as PostgresError {
            throw PostgresLogError.database(error)
          }
          appender.configured = true
        }
        appender.inTransaction = true
        // One round trip: the lock, then (a statement later, so it sees every commit made
        // before the lock was granted) what other nodes appended.
        do {
          let results = try connection.executePipeline([
            PostgresStatement("BEGIN"),
            PostgresStatement(statements.lockNotWaitingForTheDisk, prepared: true),
            PostgresStatement(
              statements.appendedAfter, [.int(lastSeen)], prepared: true, binaryResult: true),
          ])
          others = try PostgresEventLog.checkedRows(results[2], after: lastSeen, location: location)
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

  /// Inserts `appender.pending` and commits, which frees the append lock, then waits for the
  /// disk in a transaction of its own, then notifies followers of the newest seq: all in one
  /// round trip. The notification has a transaction of its own too: PostgreSQL lets one
  /// notifying transaction commit at a time, so one that waited for the disk would hold up the
  /// other nodes' waits.
  private func commit(_ appender: inout Appender, on connection: PostgresConnection)
    throws(PostgresLogError)
  {
    let pending = appender.pending
    // The columns as binary arrays, written in one pass over the group.
    var seqs = BinaryArray(.int8, count: pending.count, bytes: 8 * pending.count)
    var times = BinaryArray(.timestamptz, count: pending.count, bytes: 8 * pending.count)
    var origins = BinaryArray(.text, count: pending.count, bytes: 8 * pending.count)
    var types = BinaryArray(.text, count: pending.count, bytes: 16 * pending.count)
    var lines = BinaryArray(
      .bytea, count: pending.count, bytes: pending.reduce(0) { $0 + $1.line.count })
    var intents = BinaryArray(.int8, count: pending.count, bytes: 8 * pending.count)
    for record in pending {
      seqs.append(int64: record.seq)
      times.append(int64: Self.postgresMicroseconds(record.event.at.milliseconds))
      origins.append(utf8: record.event.origin.rawValue)
      types.append(utf8: record.event.action.type.rawValue)
      lines.append(record.line)
      if node != nil && record.event.cause == nil { intents.append(int64: record.seq) }
    }
    let insert = PostgresStatement(
      statements.insertGroup,
      [
        .bytes(seqs.finished()), .bytes(times.finished()), .bytes(origins.finished()),
        .bytes(types.finished()), .bytes(lines.finished()), .text(location.table),
        .bytes(intents.finished()), node.map { .int($0) } ?? .null,
      ], prepared: true)
    let newest = pending.last?.seq ?? known.load(ordering: .acquiring)
    do {
      try connection.executePipeline([
        insert, PostgresStatement("COMMIT"),
        PostgresStatement("BEGIN"),
        PostgresStatement(PostgresEventLog.flushStatement, prepared: true),
        PostgresStatement("COMMIT"),
        PostgresStatement(
          statements.notify, [.text(location.channel), .text(String(newest))], prepared: true),
      ])
    } catch {
      throw .database(error)
    }
    appender.inTransaction = false
    appender.pending = []
    flushed.max(newest, ordering: .releasing)
  }

  /// Notes that the log is on the server's disk through `seq`: another node said so.
  public func othersFlushed(through seq: Int) {
    flushed.max(seq, ordering: .releasing)
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
        if rows.count < PostgresEventLog.batch { break }
      }
      // Records whose node has not finished waiting for the disk are visible already: wait
      // here before the store shows them.
      let newest = known.load(ordering: .acquiring)
      if newest > flushed.load(ordering: .acquiring) {
        try PostgresEventLog.waitForTheDisk(on: connection)
        flushed.max(newest, ordering: .releasing)
      }
      return lines
    }
  }

  /// A commit is on the server's disk when it returns (`commit(_:on:)` waits for it): nothing is
  /// left to force (the store commits a group before it syncs).
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

  /// The element types of the arrays a group is sent in, by their PostgreSQL type oid.
  enum ArrayElement: Int {
    case bytea = 17
    case int8 = 20
    case text = 25
    case timestamptz = 1184
  }

  /// A one-dimensional array in PostgreSQL's binary form (`array_recv`), written element by
  /// element: the dimensions, the element type, then each element's length and bytes,
  /// big-endian; an empty array has no dimension.
  struct BinaryArray {
    private var bytes: [UInt8] = []
    private var count = 0

    /// An array of `type`, with room for `count` elements of `bytes` bytes in all.
    init(_ type: ArrayElement, count: Int, bytes: Int) {
      self.bytes.reserveCapacity(20 + 4 * count + bytes)
      append(int32: 1)  // dimensions
      append(int32: 0)  // no nulls
      append(int32: type.rawValue)
      append(int32: 0)  // the element count, set by `finished`
      append(int32: 1)  // lower bound
    }

    mutating func append(_ element: [UInt8]) {
      count += 1
      append(int32: element.count)
      bytes += element
    }

    mutating func append(utf8 text: String) {
      count += 1
      let start = bytes.count
      append(int32: 0)  // the length, set below
      bytes += text.utf8
      set(int32: bytes.count - start - 4, at: start)
    }

    /// A `bigint` (or a `timestamptz`: microseconds since 2000).
    mutating func append(int64 value: Int) {
      count += 1
      append(int32: 8)
      let bits = UInt64(bitPattern: Int64(value))
      for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: bits >> (56 - 8 * index))) }
    }

    private mutating func append(int32 value: Int) {
      let value = UInt32(truncatingIfNeeded: value)
      for index in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (24 - 8 * index))) }
    }

    private mutating func set(int32 value: Int, at offset: Int) {
      let value = UInt32(truncatingIfNeeded: value)
      for index in 0..<4 {
        bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index))
      }
    }

    /// The array's bytes: with no element, the dimensions (none), the flags and the type only.
    mutating func finished() -> [UInt8] {
      if count == 0 {
        bytes.removeLast(8)
        set(int32: 0, at: 0)
      } else {
        set(int32: count, at: 12)
      }
      return bytes
    }
  }

  /// A time in milliseconds since 1970 as a binary `timestamptz`: microseconds since 2000.
  static func postgresMicroseconds(_ milliseconds: Int64) -> Int {
    Int(milliseconds - 946_684_800_000) * 1000
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
