/// An incomplete final record: the trace of a write that a crash interrupted.
///
/// Not an error: the records before it are intact, and the interrupted record was never
/// acknowledged as durable. A reader ignores it; a writer cuts it off on open.
public struct EventLogTornTail: Equatable, Sendable, CustomStringConvertible {
  /// How the tail was recognised.
  public enum Kind: String, Sendable, Equatable {
    /// Bytes after the last newline: a record whose write did not finish.
    case unterminated
    /// A final line of nothing but NUL bytes: space the file system allocated but never
    /// filled (typical after a power loss).
    case zeroFilled
  }

  public var kind: Kind
  /// The 1-based line the incomplete record starts on.
  public var line: Int
  /// The byte offset it starts at: the end of the last complete record.
  public var offset: Int
  /// How many bytes it spans, up to the end of the file.
  public var byteCount: Int
  /// Whether the bytes were removed from the file (a writer did) or only skipped (a reader did).
  public var removed: Bool

  public init(kind: Kind, line: Int, offset: Int, byteCount: Int, removed: Bool) {
    self.kind = kind
    self.line = line
    self.offset = offset
    self.byteCount = byteCount
    self.removed = removed
  }

  public var description: String {
    let what =
      switch kind {
      case .unterminated: "an incomplete final record (no newline)"
      case .zeroFilled: "a final line of NUL bytes"
      }
    let action = removed ? "removed" : "ignored"
    return
      "\(action) \(what) at line \(line): \(byteCount) bytes from offset \(offset); "
      + "a write was interrupted, the records before it are intact"
  }
}
