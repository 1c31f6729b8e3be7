/// Why an event log could not be opened, read or appended to.
///
/// Every error names the file; corruption errors also name the 1-based line, so a person can open
/// the log at that line and see what is wrong.
public struct EventLogError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What kind of failure this is, for code that reacts to it (exit codes, HTTP statuses).
  public enum Code: String, Sendable, Equatable {
    /// Another writer holds the log (another process, or another open in this process).
    case inUse
    /// A version 2 line whose checksum does not match its bytes.
    case checksumMismatch
    /// A line that is not a well-formed record (not a JSON object, no integer `seq`, a broken
    /// checksum member, an empty line…).
    case malformedLine
    /// A record whose `seq` is not the previous record's `seq` + 1 (or the log's first seq).
    case seqOutOfOrder
    /// A line longer than the reader's maximum.
    case lineTooLong
    /// A record written in a format version this code does not know.
    case unsupportedVersion
    /// An append was given bytes that are not a version 2 object carrying the next seq; nothing
    /// was written.
    case invalidRecord
    /// A write failed; the file was cut back to the end of the last good record.
    case writeFailed
    /// An fdatasync failed, or the file could not be cut back after a failed write. The writer
    /// accepts nothing more: whether the last records reached the disk is unknown, so the process
    /// should stop and reopen the log, letting recovery decide.
    case writerBroken
    /// The writer was closed.
    case closed
    /// The file could not be opened, read, locked or inspected.
    case fileError
  }

  public var code: Code
  /// The log file.
  public var path: String
  /// The 1-based line the problem was found on, for corruption errors.
  public var line: Int?
  /// The system error number behind the failure, when there is one.
  public var errno: Int32?
  /// What went wrong and what to do about it.
  public var message: String

  public init(code: Code, path: String, line: Int? = nil, errno: Int32? = nil, message: String) {
    self.code = code
    self.path = path
    self.line = line
    self.errno = errno
    self.message = message
  }

  /// True when the bytes on disk are damaged (as opposed to the system failing us).
  public var isCorruption: Bool {
    switch code {
    case .checksumMismatch, .malformedLine, .seqOutOfOrder, .lineTooLong, .unsupportedVersion:
      return true
    case .inUse, .invalidRecord, .writeFailed, .writerBroken, .closed, .fileError:
      return false
    }
  }

  public var description: String {
    if let line { return "\(path):\(line): \(message)" }
    return "\(path): \(message)"
  }
}
