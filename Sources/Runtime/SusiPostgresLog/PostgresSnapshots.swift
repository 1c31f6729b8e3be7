import SusiEventLog
public import SusiPostgres
public import SusiStore

/// The snapshots of a log in PostgreSQL, in the database beside it, so a node starting on a long
/// log replays only what follows the newest one:
///
/// ```sql
/// CREATE TABLE susi_snapshots (log text, seq bigint, state_digest text, snapshot bytea,
///   PRIMARY KEY (log, seq))
/// ```
///
/// `snapshot` holds the same bytes a snapshot file beside a log file holds (see `Snapshot`);
/// `state_digest` repeats its header's state digest (`susi replay --digest`) for queries. The
/// checkpoint names the record at `seq` by its length and checksum (its line number is its seq,
/// its offset 0: a table has no offsets), so a snapshot is only used on the log it came from.
///
/// Any node writes one every `SnapshotKeeper.every` events it appends, in the background, and at
/// a clean stop that leaves as many not covered (`SnapshotKeeper.finish`); the newest `kept` are
/// kept.
public struct PostgresSnapshots: SnapshotDestination {
  public let location: PostgresLogLocation
  /// How many snapshots of a log are kept; older ones are deleted after a new one is in.
  public static let kept = 2

  public init(location: PostgresLogLocation) {
    self.location = location
  }

  /// A table has no end offset.
  public var logEnd: Int { 0 }

  /// Writes the snapshot of `book` once the record at `book.lastSeq` is committed: the append
  /// lock is taken (and let go at once) so a group of appends in progress ends first. When
  /// `line` is given the committed record must be exactly it, else nothing is written (its
  /// commit failed, and another node's record may have that seq).
  public func write(_ book: Recovered, line: [UInt8]?, end: Int) throws {
    let seq = book.lastSeq
    guard seq > 0 else { return }
    let connection = try PostgresConnection(location.database)
    defer { connection.close() }
    try connection.execute("BEGIN")
    try connection.execute(PostgresEventLog.appendLockStatement(location))
    let found = try connection.execute(
      "SELECT line FROM \(location.table) WHERE seq = $1", [.int(seq)], binaryResult: true)
    try connection.execute("COMMIT")
    guard found.count == 1, let record = found.bytes(0, 0) else {
      throw Snapshot.Problem(description: "the log holds no record at seq \(seq)")
    }
    if let line, line != record {
      throw Snapshot.Problem(
        description: "the log's record at seq \(seq) is not the one this node appended")
    }
    let checkpoint = EventLogCheckpoint(seq: seq, lineNumber: seq, offset: 0, line: record)
    // Nothing is written when the snapshot does not read back as the book it was made from.
    let encoded = try Snapshot(checkpoint: checkpoint, recovered: book).checkedEncoding()
    Self.storeUncompressed(on: connection)
    try connection.executePipeline([
      ("BEGIN", []),
      (
        "INSERT INTO susi_snapshots (log, seq, state_digest, snapshot) VALUES ($1, $2, $3, $4) "
          + "ON CONFLICT (log, seq) DO NOTHING",
        [.text(location.table), .int(seq), .text(encoded.stateDigest), .bytes(encoded.bytes)]
      ),
      (
        "DELETE FROM susi_snapshots WHERE log = $1 AND seq NOT IN "
          + "(SELECT seq FROM susi_snapshots WHERE log = $1 ORDER BY seq DESC LIMIT \(Self.kept))",
        [.text(location.table)]
      ),
      ("COMMIT", []),
    ])
  }

  /// Has the snapshots table store its values as they are, not compressed: a start reads the
  /// newest whole, and decompressing a few hundred kilobytes cost the server more than sending
  /// them (0.7 ms of each start). Set once for the table (what is stored already stays as it
  /// is), by the first writer that may: a role that does not own the table leaves it as it is.
  /// Asked here, where a snapshot is written in the background, and not at every start: on a new
  /// connection the catalog lookup alone costs the server most of a millisecond.
  static func storeUncompressed(on connection: PostgresConnection) {
    let storage = try? connection.execute(
      "SELECT attstorage FROM pg_attribute "
        + "WHERE attrelid = 'susi_snapshots'::regclass AND attname = 'snapshot'")
    if storage?.text(0, 0) != "e" {
      _ = try? connection.execute(
        "ALTER TABLE susi_snapshots ALTER COLUMN snapshot SET STORAGE EXTERNAL")
    }
  }

  /// The seqs of the snapshots kept, newest first.
  public func seqs(on connection: PostgresConnection) throws(PostgresError) -> [Int] {
    let rows = try connection.execute(
      "SELECT seq FROM susi_snapshots WHERE log = $1 ORDER BY seq DESC", [.text(location.table)])
    return (0..<rows.count).compactMap { rows.int($0, 0) }
  }

  /// A snapshot as the database holds it, with the log's record at its seq: not checked yet
  /// (`check`).
  public struct Stored: Sendable {
    public var seq: Int
    /// The snapshot's bytes (a snapshot file's).
    public var bytes: [UInt8]
    /// The log's record at `seq`, nil when the log has none.
    public var record: [UInt8]?
  }

  /// The newest snapshot kept (below `seq` when given), read with the log's record at its seq in
  /// one round trip; nil when there is none.
  public func newest(below seq: Int? = nil, on connection: PostgresConnection)
    throws(PostgresError) -> Stored?
  {
    let rows = try connection.execute(
      "SELECT s.seq, s.snapshot, l.line FROM susi_snapshots s "
        + "LEFT JOIN \(location.table) l ON l.seq = s.seq "
        + "WHERE s.log = $1 AND s.seq < $2 ORDER BY s.seq DESC LIMIT 1",
      [.text(location.table), .int(seq ?? Int.max)], binaryResult: true)
    guard rows.count == 1, let found = rows.int(0, 0), let bytes = rows.bytes(0, 1) else {
      return nil
    }
    return Stored(seq: found, bytes: bytes, record: rows.bytes(0, 2))
  }

  /// The newest snapshot that reads back whole, was made by this version of susi and matches the
  /// log, with one warning line for each newer one that did not (why it was ignored).
  public func newestValid(on connection: PostgresConnection) throws(PostgresError) -> (
    snapshot: Snapshot?, warnings: [String]
  ) {
    try newestValid(below: nil, on: connection)
  }

  /// `newestValid(on:)` among the snapshots below `seq` (all when nil).
  func newestValid(below seq: Int?, on connection: PostgresConnection) throws(PostgresError)
    -> (snapshot: Snapshot?, warnings: [String])
  {
    var warnings: [String] = []
    var below = seq
    while let stored = try newest(below: below, on: connection) {
      switch Self.check(stored) {
      case .success(let snapshot): return (snapshot, warnings)
      case .failure(let problem):
        warnings.append(warning(stored.seq, problem))
        below = stored.seq
      }
    }
    return (nil, warnings)
  }

  /// The line a start prints about the snapshot at `seq` it ignored.
  func warning(_ seq: Int, _ problem: Snapshot.Problem) -> String {
    "ignored the snapshot at seq \(seq) in susi_snapshots (log \(location.table)): \(problem); "
      + "the state is rebuilt from the log instead"
  }

  /// Reads `stored` back and checks it against the log: whole (its SHA-256), made by this
  /// version of susi, covering its row's seq, and the log's record at that seq the one it
  /// names (same length and checksum). Touches no connection, so it may run on any thread.
  public static func check(_ stored: Stored) -> Result<Snapshot, Snapshot.Problem> {
    let seq = stored.seq
    let snapshot: Snapshot
    do {
      snapshot = try Snapshot(decoding: stored.bytes)
    } catch {
      return .failure(error)
    }
    guard snapshot.checkpoint.seq == seq else {
      return .failure(
        Snapshot.Problem(description: "it covers seq \(snapshot.checkpoint.seq), not \(seq)"))
    }
    guard let line = stored.record else {
      return .failure(
        Snapshot.Problem(description: "it does not match the log: the log has no seq \(seq)"))
    }
    let expected = EventLogCheckpoint(seq: seq, lineNumber: seq, offset: 0, line: line)
    guard expected.recordLength == snapshot.checkpoint.recordLength,
      expected.recordCRC == snapshot.checkpoint.recordCRC
    else {
      return .failure(
        Snapshot.Problem(
          description: "it does not match the log: the record at seq \(seq) is another one"))
    }
    return .success(snapshot)
  }
}
