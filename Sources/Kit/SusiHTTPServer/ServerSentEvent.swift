/// One server-sent event (`text/event-stream`, WHATWG HTML §9.2).
public struct ServerSentEvent: Sendable, Equatable {
  /// The payload; each line becomes its own `data:` line.
  public var data: String
  /// The `id:` field, which the browser sends back as `Last-Event-ID` when it reconnects.
  public var id: String?
  /// The `event:` field: the event's type.
  public var event: String?
  /// The `retry:` field: how many milliseconds a client waits before reconnecting.
  public var retry: Int?

  /// Creates an event.
  public init(data: String, id: String? = nil, event: String? = nil, retry: Int? = nil) {
    self.data = data
    self.id = id
    self.event = event
    self.retry = retry
  }

  /// The event in wire format, ending with the blank line that dispatches it. Fails when `id`
  /// or `event` holds a line break (or `id` a NUL), which would let text inject other fields.
  public func encoded() throws(HTTPStreamError) -> [UInt8] {
    var text = ""
    if let event {
      guard !event.contains(where: \.isNewline) else { throw Self.invalid("event") }
      text += "event: \(event)\n"
    }
    if let id {
      guard !id.contains(where: \.isNewline), !id.contains("\0") else { throw Self.invalid("id") }
      text += "id: \(id)\n"
    }
    if let retry {
      guard retry >= 0 else {
        throw HTTPStreamError(code: .invalidEvent, message: "negative retry")
      }
      text += "retry: \(retry)\n"
    }
    // CRLF, CR and LF all end a line in an event stream; each line gets its own field.
    let lines = data.replacingLineBreaks().split(separator: "\n", omittingEmptySubsequences: false)
    for line in lines { text += "data: \(line)\n" }
    text += "\n"
    return Array(text.utf8)
  }

  private static func invalid(_ field: String) -> HTTPStreamError {
    HTTPStreamError(
      code: .invalidEvent, message: "server-sent event \(field) contains a line break")
  }
}

extension String {
  /// The text with CRLF and lone CR turned into LF.
  fileprivate func replacingLineBreaks() -> String {
    var result = ""
    result.reserveCapacity(utf8.count)
    var previousWasCR = false
    for scalar in unicodeScalars {
      switch scalar {
      case "\r":
        result.unicodeScalars.append("\n")
        previousWasCR = true
        continue
      case "\n" where previousWasCR:
        break
      default:
        result.unicodeScalars.append(scalar)
      }
      previousWasCR = false
    }
    return result
  }
}

/// Sends server-sent events over a streamed response; see `HTTPResponse.serverSentEvents`.
public struct ServerSentEventWriter: Sendable {
  private let body: HTTPBodyWriter

  /// Creates an event writer on top of a body writer.
  public init(_ body: HTTPBodyWriter) { self.body = body }

  /// Sends one event. Throws `HTTPStreamError` when the event is malformed or the client is gone.
  public func send(_ event: ServerSentEvent) async throws {
    try await body.write(event.encoded())
  }

  /// Sends a comment line, which clients ignore; useful as a heartbeat that also notices a
  /// client that has gone away.
  public func sendComment(_ text: String = "") async throws {
    let clean = text.replacingLineBreaks().replacing("\n", with: " ")
    try await body.write(": \(clean)\n\n")
  }
}
