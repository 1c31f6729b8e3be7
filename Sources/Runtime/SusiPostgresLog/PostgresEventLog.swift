import Glibc
import SusiEventLog
public import SusiPostgres

/// The event log in one PostgreSQL table, appended to by any number of nodes:
///
/// ```sql
/// CREATE TABLE susi_events (seq bigint PRIMARY KEY, at timestamptz NOT NULL,
///   origin text NOT NULL, type text NOT NULL, line bytea NOT NULL)
/// ```
///
/// `line` holds the record's exact line as a file log holds it (version 2, checksum included,
/// no newline), so a log copied between a file and a table replays to the same digest. `at`,
/// `origin` and `type` repeat the line's fields for queries. `susi_log_schema` records each
/// log's table format version.
///
/// A group of appends (group commit, see `PostgresEventSink`) takes a transaction-scoped
/// advisory lock on the log, reads the records other nodes appended since this node last looked,
/// lets the caller make its records after them, inserts them with the next seqs and commits:
/// seqs stay gap-free and ordered however many nodes append. The lock is held from the group's
/// first append to its commit, so a writer waiting for it blocks its thread meanwhile (nodes are
/// separate processes).
///
/// The group's transaction commits without waiting for the server's disk
/// (`synchronous_commit` off for it alone), so the lock is free again as soon as the commit is
/// visible, and the next node's group overlaps this one's wait for the disk. The node then waits
/// for the disk in a second transaction (`flushStatement`): the server writes its log in order,
/// so once that commit is on disk (and on the synchronous standbys, if any), so is the group and
/// everything committed before it. Only then does the store answer a sender or show an event,
/// and only then are followers notified on the log's channel (the table's name), with the newest
/// seq (`PostgresFollower`). A node that reads another's records before that node's wait ended
/// (inside its own group, or catching up early) shows them only after a wait of its own.
public enum PostgresEventLog {
  /// The version of the table's format this program writes.
  ///
  /// 2: `susi_log_owners (log, seq, node)` names the node that appended each intent (see
  /// `PostgresTakeover`); a version 1 log gains it in place on first use.
  ///
  /// 3: what a node needs besides the log is shared too, each row under the log's table name:
  /// `susi_snapshots (log, seq, state_digest, snapshot)` (`PostgresSnapshots`),
  /// `susi_key_hashes (log, key, sha256)` (`PostgresKeyHashes`) and
  /// `susi_subscribers (log, id, subscriber)` (`PostgresSubscribers`); older logs gain them in
  /// place on first use.
  ///
  /// 4: the sequence `susi_log_flush`, which `flushStatement` sets; older logs gain it in place
  /// on first use.
  public static let formatVersion = 4
  /// How many rows one read fetches at most.
  public static let batch = 5000

  /// What an advisory lock of this module guards (the first of its two keys).
  enum LockPurpose: Int {
    case schema = 0x5355_5301
    case append = 0x5355_5302
    case presence = 0x5355_5303
    /// Held by a live node, keyed by its node number.
    case node = 0x5355_5304
  }

  /// The statement that takes the log's append lock until the transaction ends: every writer of
  /// the log (a node's sink, `susi log copy`) appends under it.
  public static func appendLockStatement(_ location: PostgresLogLocation) -> String {
    "SELECT pg_advisory_xact_lock(\(LockPurpose.append.rawValue), \(location.lockKey))"
  }

  /// Waits until every commit made before it is on the server's disk (and on its synchronous
  /// standbys), when run in a transaction of its own with the connection's usual
  /// `synchronous_commit`: setting a sequence writes to the server's log and gives the
  /// transaction an id, so its commit waits for the disk up to there. The value means nothing.
  static let flushStatement = "SELECT setval('susi_log_flush', 1)"

  /// Returns once every commit made before it is on the server's disk (`flushStatement`).
  static func waitForTheDisk(on connection: PostgresConnection) throws(PostgresLogError) {
    do {
      try connection.execute(flushStatement)
    } catch {
      throw .database(error)
    }
  }

  /// Connects to the log's database, creating the log's table (and the schema table) when they
  /// are missing, and checks the format version.
  ///
  /// - Parameter durable: false sets `synchronous_commit` off for this connection (`--fsync
  ///   never`): a commit returns before it is on the server's disk.
  public static func connect(_ location: PostgresLogLocation, durable: Bool = true)
    throws(PostgresError) -> PostgresConnection
  {
    let connection = try PostgresConnection(location.database)
    try prepare(location, on: connection)
    if !durable { try connection.execute("SET synchronous_commit TO off") }
    return connection
  }

  /// Creates the log's table if needed and checks its format version.
  static func prepare(_ location: PostgresLogLocation, on connection: PostgresConnection)
    throws(PostgresError)
  {
    let table = location.table
    do {
      // Under a lock, so two nodes starting at once do not both try to create the tables.
      try connection.execute(
        """
        BEGIN;
        SELECT pg_advisory_xact_lock(\(LockPurpose.schema.rawValue), 0);
        CREATE TABLE IF NOT EXISTS susi_log_schema (
          log text PRIMARY KEY, version integer NOT NULL);
        CREATE TABLE IF NOT EXISTS \(table) (
          seq bigint PRIMARY KEY, at timestamptz NOT NULL, origin text NOT NULL,
          type text NOT NULL, line bytea NOT NULL);
        CREATE TABLE IF NOT EXISTS susi_log_owners (
          log text NOT NULL, seq bigint NOT NULL, node bigint NOT NULL, PRIMARY KEY (log, seq));
        CREATE TABLE IF NOT EXISTS susi_snapshots (
          log text NOT NULL, seq bigint NOT NULL, state_digest text NOT NULL,
          snapshot bytea NOT NULL, PRIMARY KEY (log, seq));
        CREATE TABLE IF NOT EXISTS susi_key_hashes (
          log text NOT NULL, key text NOT NULL, sha256 bytea NOT NULL, PRIMARY KEY (log, key));
        CREATE TABLE IF NOT EXISTS susi_subscribers (
          log text NOT NULL, id text NOT NULL, subscriber bytea NOT NULL, PRIMARY KEY (log, id));
        CREATE SEQUENCE IF NOT EXISTS susi_log_flush;
        INSERT INTO susi_log_schema (log, version) VALUES ('\(table)', \(formatVersion))
          ON CONFLICT (log) DO NOTHING;
        UPDATE susi_log_schema SET version = \(formatVersion)
          WHERE log = '\(table)' AND version < \(formatVersion);
        COMMIT
        """)
    } catch {
      _ = try? connection.execute("ROLLBACK")
      throw error
    }
    let found = try connection.execute(
      "SELECT version FROM susi_log_schema WHERE log = $1", [.text(table)])
    guard let version = found.count == 1 ? found.int(0, 0) : nil else {
      throw PostgresError(.query, "the log \(table) has no format version in susi_log_schema")
    }
    // Older versions were upgraded in place above (version 2 added the owners table, version 3
    // the snapshots, key hashes and subscribers tables, version 4 the flush sequence).
    guard version <= formatVersion else {
      throw PostgresError(
        .query,
        "the log \(table) has table format \(version); this program knows up to "
          + "\(formatVersion). Use a newer susi")
    }
  }

  /// The records after `seq`, in order, at most `limit`, each checked (checksum, seq) as a file
  /// log's reader checks its lines. Stops before a gap (a seq not yet visible).
  public static func lines(
    after seq: Int, limit: Int = batch, location: PostgresLogLocation,
    on connection: PostgresConnection
  ) throws(PostgresLogError) -> [(seq: Int, line: [UInt8])] {
    let result: PostgresResult
    do {
      result = try connection.execute(
        "SELECT seq, line FROM \(location.table) WHERE seq > $1 ORDER BY seq LIMIT $2",
        [.int(seq), .int(limit)], binaryResult: true)
    } catch {
      throw .database(error)
    }
    return try checkedRows(result, after: seq, location: location)
  }

  /// The rows (seq, line) of `result`, checked to follow `seq` one by one; a gap ends them.
  static func checkedRows(_ result: PostgresResult, after seq: Int, location: PostgresLogLocation)
    throws(PostgresLogError) -> [(seq: Int, line: [UInt8])]
  {
    var rows: [(seq: Int, line: [UInt8])] = []
    rows.reserveCapacity(result.count)
    var expected = seq + 1
    for row in 0..<result.count {
      guard let rowSeq = result.int(row, 0), let line = result.bytes(row, 1) else {
        throw .corrupt(location, seq: expected, "the row has no seq or no line")
      }
      guard rowSeq == expected else { break }
      try check(line, seq: rowSeq, location: location)
      rows.append((rowSeq, line))
      expected += 1
    }
    return rows
  }

  /// Checks that `line` is a record with seq `seq`, as the file log's reader checks a line (a
  /// version 2 line's checksum must match; a version 1 line, copied from an old file log, must be
  /// a JSON object with that seq), and that it holds no raw newline or NUL byte.
  public static func check(_ line: [UInt8], seq: Int, location: PostgresLogLocation)
    throws(PostgresLogError)
  {
    let recorded: Int
    do {
      recorded = try EventLogWriter.seq(ofLine: line)
    } catch {
      throw .corrupt(location, seq: seq, error.message)
    }
    guard recorded == seq else {
      throw .corrupt(location, seq: seq, "the line says seq \(recorded)")
    }
    let clean = line.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress else { return true }
      return memchr(base, 0x0A, bytes.count) == nil && memchr(base, 0, bytes.count) == nil
    }
    guard clean else {
      throw .corrupt(location, seq: seq, "the line holds a raw newline or NUL byte")
    }
  }
}

/// Why a PostgreSQL log could not be read or appended to.
public enum PostgresLogError: Error, Sendable, CustomStringConvertible {
  /// The database refused, or the connection failed.
  case database(PostgresError)
  /// A row does not hold a valid record: the log is damaged at that seq.
  case corrupt(table: String, seq: Int, message: String)

  static func corrupt(_ location: PostgresLogLocation, seq: Int, _ message: String) -> Self {
    .corrupt(table: location.table, seq: seq, message: message)
  }

  public var isCorruption: Bool {
    if case .corrupt = self { true } else { false }
  }

  public var description: String {
    switch self {
    case .database(let error): "\(error)"
    case .corrupt(let table, let seq, let message): "\(table), seq \(seq): \(message)"
    }
  }
}
