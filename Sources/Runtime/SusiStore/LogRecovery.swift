import SusiCore
public import SusiEventLog

/// What a start does with its log: load the newest snapshot that matches it, open the log for
/// appending (taking its lock, checking only the records after the snapshot and cutting a torn
/// tail), and replay the tail. Any snapshot that cannot be used costs one warning line and a full
/// replay, never a wrong state.
public enum LogRecovery {
  /// The environment variable that sets how many events apart snapshots are written
  /// (`SnapshotKeeper.defaultInterval` when unset); 0 turns snapshots off, reading and writing.
  public static let intervalVariable = "SUSI_SNAPSHOT_EVERY"

  /// An opened, replayed log.
  public struct Opened: Sendable {
    public var writer: EventLogWriter
    public var recovered: Recovered
    /// What the user should hear about: a torn tail that was cut, a snapshot that was ignored.
    public var warnings: [String]
    /// Writes the snapshots of this run; hand it to the store with `keepSnapshots`.
    public var snapshots: SnapshotKeeper
    /// The seq of the snapshot the start began from, nil after a full replay.
    public var snapshotSeq: Int?
    /// True unless another process was using the (shared) log: only then may requests the log
    /// shows in flight be closed as interrupted, since no live process owns them.
    public var alone: Bool { writer.presence?.wasAlone ?? true }
  }

  /// Why the log could not be opened or replayed.
  public enum Failure: Error, Sendable {
    case log(EventLogError)
    case replay(LogReplay.Failure)
  }

  /// Opens and replays the log at `path`; see the type. With `shared`, other processes may
  /// append to the log too (`EventLogWriter.Options.shared`).
  public static func open(
    path: String, fsync: EventLogFsyncPolicy, environment: [String: String], shared: Bool = false
  ) throws(Failure) -> Opened {
    let interval = environment[intervalVariable].flatMap { Int($0) }.map { max($0, 0) }
    let every = interval ?? SnapshotKeeper.defaultInterval
    let files = SnapshotFiles(
      logPath: path, holdMarker: environment[SnapshotFiles.holdBeforeRenameVariable])
    var warnings: [String] = []
    var snapshot: Snapshot?
    if every > 0 {
      let found = files.newestValid()
      snapshot = found.snapshot
      warnings += found.warnings
    }

    let writer: EventLogWriter
    do {
      writer = try EventLogWriter(
        path: path,
        options: .init(
          fsync: fsync, firstSeq: nil, resumeAfter: snapshot?.checkpoint, shared: shared))
    } catch {
      throw .log(error)
    }
    if let torn = writer.recovery.tornTail {
      warnings.append(
        "the log ended in a partly written record (\(torn)); it was cut back to the last complete one"
      )
    }
    if let chosen = snapshot, writer.recovery.resumedAfter != chosen.checkpoint {
      // The log changed between reading the snapshot and taking the lock.
      warnings.append(
        "ignored the snapshot at seq \(chosen.checkpoint.seq): the log no longer matches it; "
          + "the state is rebuilt from the whole log")
      snapshot = nil
    }

    var recovered = snapshot?.recovered ?? Recovered()
    do {
      // Only up to where the writer's scan ended: what other processes appended since is read
      // by the store when it catches up.
      try LogReplay.run(
        path: path, into: &recovered, until: writer.recovery.lastSeq ?? 0,
        after: snapshot?.checkpoint)
    } catch {
      try? writer.close()
      throw .replay(error)
    }
    let keeper = SnapshotKeeper(
      files: files, every: every, writer: writer, newestSeq: snapshot?.checkpoint.seq ?? 0)
    return Opened(
      writer: writer, recovered: recovered, warnings: warnings, snapshots: keeper,
      snapshotSeq: snapshot?.checkpoint.seq)
  }
}
