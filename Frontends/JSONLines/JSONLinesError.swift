import SusiJSON

/// Why an input line was not accepted: written to stdout as the line's one and only answer,
/// `{"id":…,"error":{"code":"…","message":"…","line":N}}`.
public struct JSONLinesError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Stable, documented reasons. Programs branch on these; never rename one.
  public enum Code: String, Sendable, CaseIterable {
    /// The line is not JSON.
    case invalidJSON = "invalid_json"
    /// The line is not valid UTF-8.
    case invalidUTF8 = "invalid_utf8"
    /// The line is longer than the limit; it was skipped unread.
    case lineTooLong = "line_too_long"
    /// The line is JSON but not an object.
    case notAnObject = "not_an_object"
    /// The object lacks a string `type`, or has a member other than `type`, `payload`, `id`.
    case invalidRequest = "invalid_request"
    /// No action has this type.
    case unknownType = "unknown_type"
    /// The type names a result, which only the effects runner may produce.
    case resultType = "result_type"
    /// The payload is not an object, lacks a field, has a field of the wrong type or an
    /// unknown field.
    case invalidPayload = "invalid_payload"
    /// The event log refused the action (disk full, log closed); nothing was recorded.
    case logFailed = "log_failed"
    /// The intent changes access (keys, groups, privileges), which `susi jsonl` takes only
    /// when started with `--allow-admin`.
    case adminOnly = "admin_only"
  }

  public var code: Code
  /// One sentence a person can act on.
  public var message: String
  /// The input line's `id`, when it could be read.
  public var id: JSON?
  /// The line's number in the input, counting from 1 (blank lines count).
  public var line: Int

  public init(_ code: Code, _ message: String, id: JSON? = nil, line: Int) {
    self.code = code
    self.message = message
    self.id = id
    self.line = line
  }

  public var description: String { "line \(line): \(code.rawValue): \(message)" }

  /// The error as one compact JSON object (no trailing newline).
  public func encoded() -> [UInt8] {
    var w = JSONWriter(capacity: 96 + message.utf8.count)
    w.object { o in
      o.field("id") { $0.value(id ?? .null) }
      o.field("error") {
        $0.object { e in
          e.field("code", code.rawValue)
          e.field("message", message)
          e.field("line", line)
        }
      }
    }
    return w.bytes
  }
}
