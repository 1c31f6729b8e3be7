public import SusiJSON

/// Why a `type` and `payload` do not make an action.
public enum ActionDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
  /// No action has this type name.
  case unknownType(String)
  /// The payload is missing a field, has a wrong type, or (for strict input) an unknown field.
  case invalidPayload(JSONShapeError)

  public var description: String {
    switch self {
    case .unknownType(let type): "unknown action type '\(type)'"
    case .invalidPayload(let error): "invalid payload: \(error)"
    }
  }
}

extension Action {
  /// Writes this action's payload as a JSON object (each payload type writes its own fields).
  public func writePayload(to w: inout JSONWriter) {
    w.object { o in writeFields(to: &o) }
  }

  /// The payload as a JSON value (secrets redacted).
  public var payloadJSON: JSON {
    var w = JSONWriter()
    writePayload(to: &w)
    // Our own writer's output always parses.
    return (try? JSONParser.parse(w.bytes, maximumDepth: Nesting.readable)) ?? .null
  }

  /// Builds an action from its `type` name and `payload` object.
  ///
  /// - Parameters:
  ///   - payload: the payload; nil or absent means `{}`.
  ///   - strict: refuse unknown payload fields (for input from other programs, where an unknown
  ///     field is most likely a typo).
  public static func decode(type: String, payload: JSON?, strict: Bool = false)
    throws(ActionDecodingError) -> Action
  {
    let object: JSONObject
    switch payload {
    case nil, .null?: object = JSONObject()
    case .object(let o)?: object = o
    case let other?:
      throw .invalidPayload(
        JSONShapeError(path: "payload", reason: "expected an object, found \(other.kindName)"))
    }
    guard let actionType = ActionType(rawValue: type) else { throw .unknownType(type) }
    let r = FieldReader(object, path: "payload")
    do throws(JSONShapeError) {
      if strict, let allowed = actionType.acceptedFields { try r.rejectUnknownKeys(allowed) }
      return try decodeFields(type: actionType, r)
    } catch {
      throw .invalidPayload(error)
    }
  }
}
