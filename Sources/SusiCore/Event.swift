import SusiJSON

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
  /// Who sent it: `cli`, `jsonl`, `webhook`, `runner`, `store`.
  public var origin: String
  /// For results: the seq of the action that asked for this one.
  public var cause: Int?
  /// The caller's correlation id (a JSON-lines input line's `id`), carried to the results.
  public var id: JSON?
  /// The `Idempotency-Key` a webhook caller sent with this action.
  public var idempotencyKey: String?
  public var action: Action

  public init(
    seq: Int, at: Timestamp, origin: String, cause: Int? = nil, id: JSON? = nil,
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
    var w = JSONWriter(capacity: 256)
    write(to: &w)
    return w.bytes
  }

  public func write(to w: inout JSONWriter) {
    w.object { o in
      o.field("v", Event.formatVersion)
      o.field("seq", seq)
      o.field("at", at.rfc3339)
      o.field("origin", origin)
      o.field("cause", cause)
      o.field("id", id)
      o.field("idempotencyKey", idempotencyKey)
      o.field("type", action.typeName)
      o.field("payload") { action.writePayload(to: &$0) }
    }
  }

  /// Reads a record (a JSON object, checksum already removed), upgrading older formats.
  public static func decode(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError) -> Event {
    let json: JSON
    do {
      json = try JSONParser.parse(bytes)
    } catch {
      throw EventDecodingError("not JSON: \(error)")
    }
    return try decode(json)
  }

  public static func decode(_ bytes: [UInt8]) throws(EventDecodingError) -> Event {
    do {
      return try bytes.withUnsafeBytes { (raw) throws(EventDecodingError) -> Event in try decode(raw) }
    } catch let error as EventDecodingError {
      throw error
    } catch {
      throw EventDecodingError("\(error)")
    }
  }

  public static func decode(_ json: JSON) throws(EventDecodingError) -> Event {
    guard case .object(let object) = json else { throw EventDecodingError("a record must be a JSON object") }
    let r = FieldReader(object)
    do {
      let version = try r.optionalInt("v") ?? 1
      guard version >= 1 else { throw EventDecodingError("unknown log format version \(version)") }
      guard version <= formatVersion else {
        throw EventDecodingError(
          "this record is in log format \(version), newer than this susi understands (\(formatVersion)); use a newer susi")
      }
      let atText = try r.string("at")
      guard let at = Timestamp(rfc3339: atText) else {
        throw EventDecodingError("at: '\(atText)' is not an RFC 3339 date-time")
      }
      let type = try r.string("type")
      let action: Action
      do {
        action = try Action.decode(type: type, payload: object["payload"])
      } catch {
        throw EventDecodingError("\(error)")
      }
      // Versions 1 and 2 share the envelope; version 1 merely lacks `v` and the checksum,
      // which the log layer handles. Later upgrades go here.
      return Event(
        seq: try r.int("seq"), at: at, origin: try r.string("origin"), cause: try r.optionalInt("cause"),
        id: r.optionalValue("id"), idempotencyKey: try r.optionalString("idempotencyKey"), action: action)
    } catch let error as JSONShapeError {
      throw EventDecodingError("\(error)")
    } catch let error as EventDecodingError {
      throw error
    } catch {
      throw EventDecodingError("\(error)")
    }
  }
}
