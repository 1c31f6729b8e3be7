/// What a writer found, and repaired, when it opened its log.
public struct EventLogRecovery: Equatable, Sendable {
  /// Whether the file did not exist and was created (empty, mode 0600).
  public var created: Bool
  /// How many complete records the log holds.
  public var recordCount: Int
  /// The seq of the last record, nil when the log is empty.
  public var lastSeq: Int?
  /// The file's length after recovery: the end of the last record.
  public var byteLength: Int
  /// The incomplete final record that was cut off, if any: a warning to show the user.
  public var tornTail: EventLogTornTail?
  /// The checkpoint the scan started after (`Options.resumeAfter`), nil when the whole log was
  /// scanned (none was given, or the log does not hold it).
  public var resumedAfter: EventLogCheckpoint?

  public init(
    created: Bool, recordCount: Int, lastSeq: Int?, byteLength: Int, tornTail: EventLogTornTail?,
    resumedAfter: EventLogCheckpoint? = nil
  ) {
    self.resumedAfter = resumedAfter
    self.created = created
    self.recordCount = recordCount
    self.lastSeq = lastSeq
    self.byteLength = byteLength
    self.tornTail = tornTail
  }
}
