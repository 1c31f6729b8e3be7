import SusiCore
import SusiJSON

/// One action as a caller posts it: the intent envelope that is also a line of `susi jsonl`,
/// read by the same decoder, with the same error codes.
struct ActionRequest: Sendable {
  var action: Action
  /// The caller's correlation id, carried to every event the action causes.
  var id: JSON?

  /// Decodes a request body, or says what is wrong with it.
  static func decode(_ body: [UInt8]) throws(WebhookError) -> ActionRequest {
    let decoded = body.withUnsafeBytes { bytes in
      Result { () throws(IntentEnvelope.Refusal) in
        try IntentEnvelope.decode(
          bytes,
          accessChanges: .refused(
            hint: "it is sent through the /admin routes, which fill in the acting key"))
      }
    }
    switch decoded {
    case .success(let envelope):
      return ActionRequest(action: envelope.action, id: envelope.id)
    case .failure(let refusal):
      let message =
        switch refusal.code {
        case .invalidJSON, .invalidUTF8: "the body is " + refusal.message
        default: refusal.message
        }
      throw .badRequest(refusal.code.rawValue, message)
    }
  }
}
