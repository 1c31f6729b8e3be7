public import SusiCore
public import SusiJSON

/// Why an input line was not accepted: written to stdout as the line's one and only answer,
/// `{"id":…,"error":{"code":"…","message":"…","line":N}}`.
public struct JSONLinesError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The same codes as `POST /actions` answers with.
  public typealias Code = IntentErrorCode

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
