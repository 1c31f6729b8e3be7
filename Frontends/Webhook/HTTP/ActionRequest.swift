import SusiCore
import SusiJSON

/// One action as a caller posts it: `{"type":…,"payload":…,"id":…}`, the same shape as a
/// line of the JSON-lines protocol. Decoding is strict: unknown fields are refused, since they
/// are most likely typos.
struct ActionRequest: Sendable {
  var action: Action
  /// The caller's correlation id, carried to every event the action causes.
  var id: JSON?

  static let fields: Set<String> = ["type", "payload", "id"]

  /// Decodes a request body, or says what is wrong with it.
  static func decode(_ body: [UInt8]) throws(WebhookError) -> ActionRequest {
    let json: JSON
    do {
      json = try JSONParser.parse(body)
    } catch {
      throw .badRequest("invalid_json", "the body is not JSON: \(error)")
    }
    guard case .object(let object) = json else {
      throw .badRequest(
        "not_an_object",
        "an action is a JSON object with \"type\", \"payload\" and \"id\", not \(json.kindName)")
    }
    for key in object.keys where !fields.contains(key) {
      throw .badRequest(
        "invalid_request", "unknown field '\(key)'; an action has \"type\", \"payload\" and \"id\"")
    }
    guard let typeValue = object["type"] else {
      throw .badRequest("invalid_request", "the action has no \"type\"")
    }
    guard case .string(let type) = typeValue else {
      throw .badRequest("invalid_request", "\"type\" must be a string, not \(typeValue.kindName)")
    }
    if Privilege.accessIntents.contains(type) {
      throw .badRequest(
        "admin_only",
        "\(type) changes access and is sent through the /admin routes, which fill in the acting key"
      )
    }
    guard Action.intentTypes.contains(type) || Action.resultTypes.contains(type) else {
      throw .badRequest("unknown_type", "unknown action type '\(type)'")
    }
    if Action.resultTypes.contains(type) {
      throw .badRequest(
        "result_type", "\(type) is a result; only the effects runner reports results")
    }
    let action: Action
    do {
      action = try Action.decode(type: type, payload: object["payload"], strict: true)
    } catch {
      switch error {
      case .unknownType:
        throw .badRequest("unknown_type", "unknown action type '\(type)'")
      case .invalidPayload(let shape):
        throw .badRequest("invalid_payload", shape.description)
      }
    }
    return ActionRequest(action: action, id: object["id"].flatMap { $0.isNull ? nil : $0 })
  }
}
