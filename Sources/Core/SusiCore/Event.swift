public import SusiJSON

/// One line of the event log: an action stamped with its place in history.
///
/// ```
/// {"v":2,"seq":7,"at":"2026-11-21T10:00:00.123Z","origin":"jsonl","type":"submitRating","payload":{…}}
/// ```
public struct Event: Equatable, Sendable {
  /// The log format this code writes. Version 1 is the same envelope without `v` and without
  /// the per-line checksum; it is read and upgraded, never written.
  public static let formatVersion = 2

  /// Position in the log: 1, 2, 3, … with no gaps.
  public var seq: Int
  /// When the store accepted the action.
  public var at: Timestamp
  /// Who sent it.
  public var origin: EventOrigin
  // The optional members are spelled `Optional<…>`: a `var` written `T?` starts out nil, so the
  // initializer's stores would be assignments, after which the compiler copies the whole event
  // once more to return it (a retain and a release of every member, per event made).
  /// For results: the seq of the action that asked for this one.
  public var cause: Optional<Int>
  /// The caller's correlation id (a JSON-lines input line's `id`), carried to the results.
  public var id: Optional<JSON>
  /// The `Idempotency-Key` a webhook caller sent with this action.
  public var idempotencyKey: Optional<String>
  public var action: Action

  public init(
    seq: Int, at: Timestamp, origin: EventOrigin, cause: Int? = nil, id: JSON? = nil,
    idempotencyKey: String? = nil, action: Action
  ) {
    self.seq = seq
    self.at = at
    self.origin = origin
    self.cause = cause
    self.id = id
    self.idempotencyKey = idempotencyKey
    self.action = action
  }
}

/// Why a log record is not an event.
public struct EventDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

extension Event {
  /// The record as the log stores it, without the checksum the log adds:
  /// one compact JSON object, envelope fields first in a fixed order.
  public func encoded() -> [UInt8] {
    // Room for a typical answer (300-600 bytes) at once: no growing copy per event.
    var w = JSONWriter(capacity: 640)
    write(to: &w)
    return w.bytes
  }

  public func write(to w: inout JSONWriter) {
    // The envelope's keys are fixed text, written as such: no closure and no comma check per
    // field (two events a request go through here).
    w.raw("{\"v\":")
    w.int(Event.formatVersion)
    w.raw(",\"seq\":")
    w.int(seq)
    w.raw(",\"at\":\"")
    at.append(to: &w.bytes)
    w.raw("\",\"origin\":")
    w.string(origin.rawValue)
    if let requestID = origin.requestID {
      w.raw(",\"requestId\":")
      w.string(requestID)
    }
    if let cause {
      w.raw(",\"cause\":")
      w.int(cause)
    }
    if let id {
      w.raw(",\"id\":")
      w.value(id)
    }
    if let idempotencyKey {
      w.raw(",\"idempotencyKey\":")
      w.string(idempotencyKey)
    }
    w.raw(",\"type\":")
    w.string(action.type.rawValue)
    w.raw(",\"payload\":")
    action.writePayload(to: &w)
    w.byte(UInt8(ascii: "}"))
  }

  /// Reads a record (a JSON object, checksum already removed), upgrading older formats.
  public static func decode(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError) -> Event {
    let json: JSON
    do {
      json = try JSONParser.parse(bytes, maximumDepth: Nesting.readable)
    } catch {
      throw EventDecodingError("not JSON: \(error)")
    }
    return try decode(json)
  }

  public static func decode(_ bytes: [UInt8]) throws(EventDecodingError) -> Event {
    do {
      return try bytes.withUnsafeBytes { (raw) throws(EventDecodingError) -> Event in
        try decode(raw)
      }
    } catch let error as EventDecodingError {
      throw error
    } catch {
      throw EventDecodingError("\(error)")
    }
  }

  public static func decode(_ json: JSON) throws(EventDecodingError) -> Event {
    guard case .object(let object) = json else {
      throw EventDecodingError("a record must be a JSON object")
    }
    // One pass over the members: replay decodes millions of these.
    var version = 1
    var seq: Int?
    var at: Timestamp?
    var origin: EventOrigin?
    var requestID: String?
    var cause: Int?
    var id: JSON?
    var idempotencyKey: String?
    var type: String?
    var payload: JSON?
    func mismatch(_ key: String, _ expected: String, _ value: JSON) -> EventDecodingError {
      EventDecodingError("\(key): expected \(expected), found \(value.kindName)")
    }
    for member in object {
      switch member.key {
      case "v":
        guard let v = member.value.int else { throw mismatch("v", "an integer", member.value) }
        version = v
      case "seq":
        guard let n = member.value.int else { throw mismatch("seq", "an integer", member.value) }
        seq = n
      case "at":
        guard case .string(let text) = member.value else {
          throw mismatch("at", "a string", member.value)
        }
        guard let t = Timestamp(rfc3339: text) else {
          throw EventDecodingError("at: '\(text)' is not an RFC 3339 date-time")
        }
        at = t
      case "origin":
        guard case .string(let text) = member.value else {
          throw mismatch("origin", "a string", member.value)
        }
        origin = EventOrigin(rawValue: text)
      case "requestId":
        if member.value.isNull { break }
        guard case .string(let text) = member.value else {
          throw mismatch("requestId", "a string", member.value)
        }
        requestID = text
      case "cause":
        if member.value.isNull { break }
        guard let n = member.value.int else { throw mismatch("cause", "an integer", member.value) }
        cause = n
      case "id":
        if !member.value.isNull { id = member.value }
      case "idempotencyKey":
        if member.value.isNull { break }
        guard case .string(let text) = member.value else {
          throw mismatch("idempotencyKey", "a string", member.value)
        }
        idempotencyKey = text
      case "type":
        guard case .string(let text) = member.value else {
          throw mismatch("type", "a string", member.value)
        }
        type = text
      case "payload":
        payload = member.value
      default:
        break  // fields added by newer versions are ignored
      }
    }
    guard version >= 1 else { throw EventDecodingError("unknown log format version \(version)") }
    guard version <= formatVersion else {
      throw EventDecodingError(
        "this record is in log format \(version), newer than this susi understands (\(formatVersion)); use a newer susi"
      )
    }
    guard let seq else { throw EventDecodingError("seq: missing") }
    guard let at else { throw EventDecodingError("at: missing") }
    guard let origin = origin?.carried(by: requestID) else {
      throw EventDecodingError("origin: missing")
    }
    guard let type else { throw EventDecodingError("type: missing") }
    let action: Action
    do {
      action = try Action.decode(type: type, payload: payload)
    } catch {
      throw EventDecodingError("\(error)")
    }
    // Versions 1 and 2 share the envelope; version 1 merely lacks `v` and the checksum, which the
    // log layer handles. Later upgrades go here.
    return Event(
      seq: seq, at: at, origin: origin, cause: cause, id: id, idempotencyKey: idempotencyKey,
      action: action)
  }
}
