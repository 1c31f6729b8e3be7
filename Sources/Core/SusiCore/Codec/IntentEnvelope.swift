public import SusiJSON
import Synchronization

/// One intent as a program sends it, `{"type":…,"payload":…,"id":…}`: a line of `susi jsonl`
/// and the body of `POST /actions` have this one shape and are read by this one decoder.
///
/// Reading is strict: anything that is not exactly an intent in this shape is refused with a
/// code programs can branch on and a message a person can act on.
public struct IntentEnvelope: Sendable {
  public var action: Action
  /// The caller's correlation id, copied onto every event the intent causes.
  public var id: JSON?

  /// The members an envelope may have.
  public static let members: Set<String> = ["type", "payload", "id"]

  /// What a frontend does with intents that change access (keys, groups, privileges).
  public enum AccessChanges: Sendable {
    /// Refused with `admin_only`; `hint` says where such intents go instead.
    case refused(hint: String)
    /// Accepted and recorded as done by `actor`, which the input may not name itself.
    case recordedAs(actor: String, frontend: String)
  }

  /// Why an envelope was refused. Nothing is sent for it.
  public struct Refusal: Error, Equatable, Sendable {
    public typealias Code = IntentErrorCode

    public var code: Code
    public var message: String
    /// The envelope's `id`, when it could be read.
    public var id: JSON?
  }

  /// Decodes one envelope from JSON text (a trailing `\r` and surrounding blanks allowed).
  public static func decode(
    _ bytes: UnsafeRawBufferPointer, accessChanges: AccessChanges
  ) throws(Refusal) -> IntentEnvelope {
    if let envelope = ordinary(bytes) { return envelope }
    return try decodeTree(bytes, accessChanges: accessChanges)
  }

  /// The envelope read straight from its bytes, with no tree, when it is an ordinary intent:
  /// only the envelope's members, each once; a `type` naming an intent that changes no access;
  /// a payload that is absent, null, or an object the strict rules accept. Nil for anything
  /// else, which the tree then reads: it gives the same envelope, or the refusal that says
  /// what is wrong.
  static func ordinary(_ bytes: UnsafeRawBufferPointer) -> IntentEnvelope? {
    JSONReader.readWholeObject(bytes, maximumDepth: Nesting.outside) { fields in
      guard let type = ActionType(rawValue: try fields.string("type")), type.kind != .result,
        !Privilege.accessIntents.contains(type)
      else { return nil }
      var id = try fields.optionalValue("id")
      if id == .null { id = nil }
      let action: Action
      if let payload = try fields.optionalObject("payload") {
        if let allowed = type.acceptedFields { try payload.rejectUnknownKeys(allowed) }
        action = try Action.decodeFields(type: type, payload)
      } else {
        action = try Action.decode(type: type.rawValue, payload: nil, strict: true)
      }
      return IntentEnvelope(action: action, id: id)
    }
  }

  /// How reading `bytes` straight from them and reading their tree differ; nil when they
  /// agree. The byte reader may leave an envelope to the tree, but what it does read must be
  /// what the tree reads (for the tests and the fuzz target).
  public static func disagreement(_ bytes: UnsafeRawBufferPointer) -> String? {
    guard let fromBytes = ordinary(bytes) else { return nil }
    do {
      let fromTree = try decodeTree(bytes, accessChanges: .refused(hint: "not here"))
      guard fromTree.action != fromBytes.action || fromTree.id != fromBytes.id else { return nil }
      return "the bytes give \(fromBytes), the tree \(fromTree)"
    } catch {
      return "the bytes give \(fromBytes), the tree refuses it (\(error.code): \(error.message))"
    }
  }

  /// The envelope read through a tree, which names what is wrong with one it refuses.
  private static func decodeTree(
    _ bytes: UnsafeRawBufferPointer, accessChanges: AccessChanges
  ) throws(Refusal) -> IntentEnvelope {
    let json: JSON
    do {
      json = try JSONParser.parse(bytes, maximumDepth: Nesting.outside)
    } catch {
      if String(validating: bytes, as: UTF8.self) == nil {
        throw Refusal(code: .invalidUTF8, message: "not valid UTF-8")
      }
      throw Refusal(code: .invalidJSON, message: "not JSON: \(error)")
    }
    guard case .object(let object) = json else {
      throw Refusal(code: .notAnObject, message: "expected one JSON object, found \(json.kindName)")
    }
    // An `id` of null is no id. (Not `flatMap { $0.isNull ? nil : $0 }`: JSON takes `nil` as
    // a literal, so that closure gives `.null` back, which the log writes and reads as no id.)
    var id = object["id"]
    if id == .null { id = nil }
    func refusal(_ code: Refusal.Code, _ message: String) -> Refusal {
      Refusal(code: code, message: message, id: id)
    }

    for member in object.members where !members.contains(member.key) {
      throw refusal(
        .invalidRequest,
        "unknown member '\(excerpt(member.key))'; an intent has only type, payload and id")
    }
    guard let typeValue = object["type"] else {
      throw refusal(
        .invalidRequest,
        "missing 'type', e.g. {\"type\":\"sendMessage\",\"payload\":{\"query\":\"hi\"}}")
    }
    guard case .string(let type) = typeValue else {
      throw refusal(.invalidRequest, "'type' must be a string, found \(typeValue.kindName)")
    }
    guard let actionType = ActionType(rawValue: type) else {
      var message = "no intent is called '\(excerpt(type))'"
      if let near = suggestion(for: type) { message += "; did you mean '\(near)'?" }
      throw refusal(.unknownType, message)
    }
    if actionType.kind == .result {
      throw refusal(
        .resultType,
        "'\(excerpt(type))' is a result, which only susi itself records; send an intent instead")
    }
    var payload = object["payload"]
    if Privilege.accessIntents.contains(actionType) {
      switch accessChanges {
      case .refused(let hint):
        throw refusal(.adminOnly, "\(type) changes access; \(hint)")
      case .recordedAs(let actor, let frontend):
        // Who acts is the frontend's to say, never the input's.
        if case .object(var fields) = payload {
          if fields["by"] != nil {
            throw refusal(
              .invalidPayload,
              "payload.by: leave it out; \(frontend) records access changes as done by \(actor)")
          }
          fields["by"] = .string(actor)
          payload = .object(fields)
        }
      }
    }
    do {
      return IntentEnvelope(
        action: try Action.decode(type: type, payload: payload, strict: true), id: id)
    } catch {
      switch error {
      case .invalidPayload(let shape): throw refusal(.invalidPayload, "\(shape)")
      case .unknownType: throw refusal(.unknownType, "no intent is called '\(excerpt(type))'")
      }
    }
  }

  private static let intentNames = ActionType.intents.map(\.rawValue)
  /// Suggestions already worked out, by unknown type ("" for none): a program that sends one
  /// wrong type tends to keep sending it.
  private static let suggestions = Mutex<[String: String]>([:])

  /// The intent `type` was probably meant to be, if any.
  static func suggestion(for type: String) -> String? {
    // Only a short name can be near an intent name, and the search costs length squared.
    guard type.utf8.count <= 32 else { return nil }
    if let known = suggestions.withLock({ $0[type] }) { return known.isEmpty ? nil : known }
    let found = Spelling.closest(to: type, in: intentNames) ?? ""
    suggestions.withLock {
      if $0.count >= 64 { $0.removeAll() }
      $0[type] = found
    }
    return found.isEmpty ? nil : found
  }

  /// `text`, cut short when long: messages quote what was sent, but a quote need not be as
  /// long as the input.
  static func excerpt(_ text: String) -> String {
    guard text.utf8.count > 64 else { return text }
    return String(text.prefix(48)) + "…"
  }
}

/// Why an intent was not accepted, the same for `susi jsonl` lines and `POST /actions` bodies.
/// Stable and documented: programs branch on these; never rename one.
public enum IntentErrorCode: String, Sendable, CaseIterable {
  /// Not JSON.
  case invalidJSON = "invalid_json"
  /// Not valid UTF-8.
  case invalidUTF8 = "invalid_utf8"
  /// A line longer than the limit; it was skipped unread (a body too large gets HTTP 413).
  case lineTooLong = "line_too_long"
  /// JSON, but not an object.
  case notAnObject = "not_an_object"
  /// No string `type`, or a member other than `type`, `payload`, `id`.
  case invalidRequest = "invalid_request"
  /// No action has this type.
  case unknownType = "unknown_type"
  /// The type names a result, which only the effects runner reports.
  case resultType = "result_type"
  /// The payload is not an object, lacks a field, has a field of the wrong type or an unknown
  /// field.
  case invalidPayload = "invalid_payload"
  /// The event log refused the intent (disk full, log closed); nothing was recorded.
  case logFailed = "log_failed"
  /// An access change (keys, groups, privileges) where the frontend does not take one.
  case adminOnly = "admin_only"
}
