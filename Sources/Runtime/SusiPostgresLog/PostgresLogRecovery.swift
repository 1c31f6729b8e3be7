public import SusiCore
import SusiEventLog
public import SusiPostgres
public import SusiStore

/// What a start does with a log in PostgreSQL: connect, create the tables if needed, note whether
/// another node is using the log, load the newest snapshot that matches the log
/// (`PostgresSnapshots`) and replay the records after it into the state. A snapshot that cannot
/// be used costs one warning line and a longer replay, never a wrong state.
public enum PostgresLogRecovery {
  /// An opened, replayed log.
  public struct Opened: Sendable {
    public var sink: PostgresEventSink
    public var recovered: Recovered
    /// True when no other node held the log open: only then may requests the log shows in flight
    /// be closed as interrupted, since no live node owns them.
    public var alone: Bool
    /// What the user should hear about: a snapshot that was ignored, and why.
    public var warnings: [String] = []
    /// Writes the snapshots of this run; hand it to the store with `keepSnapshots`.
    public var snapshots: SnapshotKeeper
    /// The seq of the snapshot the start began from, nil after a full replay.
    public var snapshotSeq: Int?
    /// When each step of the start ended.
    public var timeline = StartTimeline()
  }

  /// When each step of a start ended, from its beginning: what `susi-bench pgstart` shows.
  public struct StartTimeline: Sendable {
    /// The steps in the order they ended (those on another thread among them).
    public var steps: [Step] { marks.sorted { $0.at < $1.at } }
    private var marks: [Step] = []
    let began = ContinuousClock.now

    public struct Step: Sendable {
      public var name: String
      public var at: Duration
    }

    mutating func mark(_ name: String, at instant: ContinuousClock.Instant = .now) {
      marks.append(Step(name: name, at: instant - began))
    }
  }

  /// Connects to the log at `location` and replays it.
  ///
  /// - Parameters:
  ///   - durable: false lets commits return before they reach the server's disk
  ///     (`--fsync never`).
  ///   - groupCommit: false commits every append on its own (see `PostgresEventSink`).
  ///   - snapshotEvery: how many events apart this node writes snapshots; 0 turns snapshots
  ///     off, reading and writing (`SUSI_SNAPSHOT_EVERY`, as for a log file).
  public static func open(
    _ location: PostgresLogLocation, durable: Bool = true, groupCommit: Bool = true,
    snapshotEvery: Int = SnapshotKeeper.defaultInterval
  ) throws(PostgresLogError) -> Opened {
    let connection: PostgresConnection
    let alone: Bool
    var node: Int?
    let snapshots = PostgresSnapshots(location: location)
    var checking: (seq: Int, result: BackgroundWork<Checked>)?
    var timeline = StartTimeline()
    do {
      connection = try PostgresConnection(location.database)
      timeline.mark("connected")
      // The newest snapshot first, even before the tables are checked: it is decoded and checked
      // on another thread while this one checks the tables, takes the locks and asks for the
      // records after it.
      var early: Result<PostgresSnapshots.Stored?, PostgresError>?
      if snapshotEvery > 0 {
        early = Result { () throws(PostgresError) in try snapshots.newest(on: connection) }
        timeline.mark("newest snapshot fetched")
        if case .success(let newest?) = early {
          checking = (newest.seq, BackgroundWork { Checked(newest) })
        }
      }
      try PostgresEventLog.prepare(location, on: connection)
      timeline.mark("tables checked")
      if !durable { try connection.execute("SET synchronous_commit TO off") }
      // The snapshots table may not have existed yet (it does now): asked again.
      if case .failure = early, let newest = try snapshots.newest(on: connection) {
        checking = (newest.seq, BackgroundWork { Checked(newest) })
      }
      // Every live node holds the log's presence lock shared, for as long as its connection
      // lives (a node that dies lets go of it). Taking it exclusively succeeds only when no other
      // node holds it.
      let key = "\(PostgresEventLog.LockPurpose.presence.rawValue), \(location.lockKey)"
      let tried = try connection.execute("SELECT pg_try_advisory_lock(\(key))")
      alone = tried.text(0, 0) == "t"
      if alone { try connection.execute("SELECT pg_advisory_unlock(\(key))") }
      try connection.execute("SELECT pg_advisory_lock_shared(\(key))")
      // This node's own lock, held while it lives: a number no live node holds.
      while node == nil {
        let candidate = Int.random(in: 1...Int(Int32.max))
        let nodeKey = "\(PostgresEventLog.LockPurpose.node.rawValue), \(candidate)"
        let taken = try connection.execute("SELECT pg_try_advisory_lock(\(nodeKey))")
        if taken.text(0, 0) == "t" { node = candidate }
      }
      timeline.mark("locks taken")
    } catch {
      throw .database(error)
    }
    var snapshot: Snapshot?
    var warnings: [String] = []
    var first: Batch?
    if let (seq, result) = checking {
      let tail = Result { () throws(PostgresLogError) in
        try Batch.read(after: seq, limit: firstBatch, location: location, on: connection)
      }
      timeline.mark("records after it read")
      let checked = result.value()
      timeline.mark("snapshot checked, decoding began", at: checked.began)
      timeline.mark("snapshot checked and decoded", at: checked.ended)
      timeline.mark("waited for the snapshot")
      switch checked.result {
      case .success(let checked):
        snapshot = checked
        first = try tail.get()
      case .failure(let problem):
        // An older one, if any is usable, checked here one after the other.
        warnings.append(snapshots.warning(seq, problem))
        do {
          let older = try snapshots.newestValid(below: seq, on: connection)
          snapshot = older.snapshot
          warnings += older.warnings
        } catch {
          throw .database(error)
        }
      }
    }
    var recovered = snapshot?.recovered ?? Recovered()
    try replay(location, on: connection, into: &recovered, first: first)
    timeline.mark("replayed")
    // The newest records may belong to a node still waiting for the disk (see
    // `PostgresEventLog`): this node shows nothing it has not seen on the disk.
    if recovered.lastSeq > 0 { try PostgresEventLog.waitForTheDisk(on: connection) }
    return Opened(
      sink: PostgresEventSink(
        location: location, connection: connection, lastSeq: recovered.lastSeq,
        groupCommit: groupCommit, node: node),
      recovered: recovered, alone: alone, warnings: warnings,
      snapshots: SnapshotKeeper(
        destination: snapshots, every: snapshotEvery, newestSeq: snapshot?.checkpoint.seq ?? 0),
      snapshotSeq: snapshot?.checkpoint.seq, timeline: timeline)
  }

  /// A snapshot checked on another thread, and when that began and ended.
  struct Checked: Sendable {
    let began = ContinuousClock.now
    let result: Result<Snapshot, Snapshot.Problem>
    let ended: ContinuousClock.Instant

    init(_ stored: PostgresSnapshots.Stored) {
      result = PostgresSnapshots.check(stored)
      ended = .now
    }
  }

  /// How many records the first read of a replay asks for: few, so folding starts soon (and a
  /// start on a snapshot at the log's end reads little); each read after it asks for twice as
  /// many as the one before, up to `PostgresEventLog.batch`.
  static let firstBatch = 500

  /// Folds the log's records after `recovered.lastSeq` into `recovered`, up to `until` when given,
  /// calling `visit` after each event with the effects it asked for and the state after it.
  ///
  /// The records are read in batches, each (and the first half of it decoded) on another thread
  /// while the one before it is folded on this one (`connection` is used by that thread
  /// meanwhile, by nobody else).
  public static func replay(
    _ location: PostgresLogLocation, on connection: PostgresConnection,
    into recovered: inout Recovered, until: Int? = nil,
    visit: (Event, [Effect], State) throws -> Void = { _, _, _ in }
  ) throws(PostgresLogError) {
    try replay(location, on: connection, into: &recovered, until: until, first: nil, visit: visit)
  }

  /// `replay(_:on:into:until:visit:)`, with `first` the batch read already (asked for with
  /// `firstBatch` after `recovered.lastSeq`).
  static func replay(
    _ location: PostgresLogLocation, on connection: PostgresConnection,
    into recovered: inout Recovered, until: Int? = nil, first: Batch?,
    visit: (Event, [Effect], State) throws -> Void = { _, _, _ in }
  ) throws(PostgresLogError) {
    var size = firstBatch
    var limit = min(size, (until ?? Int.max) - recovered.lastSeq)
    guard limit > 0 else { return }
    var batch: Batch
    if let first {
      batch = first
    } else {
      batch = try Batch.read(
        after: recovered.lastSeq, limit: limit, location: location, on: connection)
    }
    func apply(_ event: Event) throws(PostgresLogError) {
      let effects = recovered.apply(event).effects
      do {
        try visit(event, effects, recovered.state)
      } catch {
        throw PostgresLogError.corrupt(location, seq: event.seq, "\(error)")
      }
    }
    let handed = HandedOver(connection)
    while true {
      // The next batch, read while this one is folded.
      var next: BackgroundWork<Result<Batch, PostgresLogError>>?
      if batch.failure == nil, batch.rows == limit, let last = batch.lastSeq {
        size = min(size * 2, PostgresEventLog.batch)
        limit = min(size, (until ?? Int.max) - last)
        if limit > 0 {
          let asked = limit
          next = BackgroundWork {
            Result { () throws(PostgresLogError) in
              try Batch.read(after: last, limit: asked, location: location, on: handed.value)
            }
          }
        }
      }
      do throws(PostgresLogError) {
        for event in batch.events { try apply(event) }
        if let failure = batch.failure { throw failure }
        // The rest of the batch is decoded here, while the other thread reads the next one.
        for row in batch.rest { try apply(try decode(row, location: location)) }
      } catch {
        // The connection is the caller's again only once the read in flight is done.
        _ = next?.value()
        throw error
      }
      guard let next else { return }
      batch = try next.value().get()
    }
  }

  /// Records read from the log, the first half of them decoded (by the thread that read them;
  /// the thread folding them decodes the rest): the two threads of a replay then share the work
  /// about evenly.
  struct Batch: Sendable {
    /// The first records' events, in order, up to the first record that is not an event.
    var events: [Event]
    /// Why the record after `events` is not an event, if one is not (`rest` is then empty).
    var failure: PostgresLogError?
    /// The records after `events`, not decoded yet.
    var rest: ArraySlice<(seq: Int, line: [UInt8])>
    /// How many records were read, and the seq of the last.
    var rows: Int
    var lastSeq: Int?

    /// Reads at most `limit` records after `seq` (checked as `PostgresEventLog.lines` checks
    /// them) and decodes the first half.
    static func read(
      after seq: Int, limit: Int, location: PostgresLogLocation, on connection: PostgresConnection
    ) throws(PostgresLogError) -> Batch {
      let lines = try PostgresEventLog.lines(
        after: seq, limit: limit, location: location, on: connection)
      let half = (lines.count + 1) / 2
      var batch = Batch(
        events: [], rest: lines[half...], rows: lines.count, lastSeq: lines.last?.seq)
      batch.events.reserveCapacity(half)
      for row in lines[..<half] {
        do {
          batch.events.append(try decode(row, location: location))
        } catch {
          batch.failure = error
          batch.rest = []
          break
        }
      }
      return batch
    }
  }

  /// The event a record holds, checked to have the record's seq.
  static func decode(_ row: (seq: Int, line: [UInt8]), location: PostgresLogLocation)
    throws(PostgresLogError) -> Event
  {
    let event: Event
    do {
      event = try Event.read(logLine: row.line)
    } catch {
      throw .corrupt(location, seq: row.seq, "the record is not an event: \(error)")
    }
    guard event.seq == row.seq else {
      throw .corrupt(location, seq: row.seq, "the record says seq \(event.seq)")
    }
    return event
  }
}
