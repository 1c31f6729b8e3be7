/// When appended records are forced to stable storage with `fdatasync`.
///
/// Every policy writes each record (or batch of records, `appendLines`) with one `write()` before
/// the append returns, so a killed process loses at most what it was writing, which no caller
/// was told was appended. They differ on an OS crash or power loss.
public enum EventLogFsyncPolicy: String, Sendable, CaseIterable {
  /// `fdatasync` before `append` returns: a returned append survives a power loss.
  case always
  /// Group commit: `append` returns after `write()`; a background flusher runs `fdatasync` soon
  /// after (see `EventLogGroupCommit`), and `sync()` or `close()` force it. A power loss can cost
  /// the records of the last window.
  case batch
  /// No `fdatasync` at all (except an explicit `sync()`): the OS writes back when it likes.
  case never
}

/// How long the `batch` policy lets written records wait for their `fdatasync`.
public struct EventLogGroupCommit: Sendable, Equatable {
  /// The longest a written record waits before a flush starts.
  public var maxDelay: Duration
  /// A flush starts at once when this many records are waiting.
  public var maxRecords: Int

  /// The defaults bound what a power loss can take to the last 100 ms (or 4096 records); a
  /// crashed process loses nothing it wrote. Smaller groups cost append throughput: at 50 ms and
  /// 1024 records, appending fell to about half the rate of plain writes.
  public init(maxDelay: Duration = .milliseconds(100), maxRecords: Int = 4096) {
    self.maxDelay = maxDelay
    self.maxRecords = maxRecords
  }
}
