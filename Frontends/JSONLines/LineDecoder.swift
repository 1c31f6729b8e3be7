import SusiCore
import SusiFrontendSupport
import SusiJSON
import Synchronization

/// What one input line asks for.
enum DecodedLine: Sendable {
  /// An empty or all-whitespace line: ignored.
  case blank
  /// An intent to send, with the caller's correlation id and the line's number.
  case intent(Action, id: JSON?, line: Int)
  /// The line is refused; nothing is sent.
  case refused(JSONLinesError)
}

/// Turns input lines into intents, strictly: anything that is not exactly an intent in the
/// documented shape is refused with an error saying what is wrong.
enum LineDecoder {
  /// The members an input line may have.
  static let lineMembers: Set<String> = ["type", "payload", "id"]
  private static let intentTypes = Set(Action.intentTypes)
  private static let resultTypes = Set(Action.resultTypes)
  /// Suggestions already worked out, by unknown type ("" for none): a program that sends one
  /// wrong type tends to keep sending it.
  private static let suggestions = Mutex<[String: String]>([:])

  static func decode(_ line: InputLine, maximumLineLength: Int, allowsAdministration: Bool = false)
    -> DecodedLine
  {
    switch line.content {
    case .tooLong(let length):
      return .refused(
        JSONLinesError(
          .lineTooLong,
          "the line is \(length) bytes long, over the limit of \(maximumLineLength); it was skipped",
          line: line.number))
    case .text(let bytes):
      return bytes.withUnsafeBytes {
        decode($0, number: line.number, allowsAdministration: allowsAdministration)
      }
    }
  }

  static func decode(_ raw: UnsafeRawBufferPointer, number: Int, allowsAdministration: Bool = false)
    -> DecodedLine
  {
    var bytes = raw
    if let last = bytes.last, last == UInt8(ascii: "\r") {
      bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast())
    }
    if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .blank }

    let json: JSON
    do {
      json = try JSONParser.parse(bytes)
    } catch {
      if String(validating: bytes, as: UTF8.self) == nil {
        return .refused(JSONLinesError(.invalidUTF8, "the line is not valid UTF-8", line: number))
      }
      return .refused(JSONLinesError(.invalidJSON, "the line is not JSON: \(error)", line: number))
    }
    guard case .object(let object) = json else {
      return .refused(
        JSONLinesError(
          .notAnObject, "expected one JSON object per line, found \(json.kindName)", line: number))
    }
    let id = object["id"].flatMap { $0.isNull ? nil : $0 }
    func refuse(_ code: JSONLinesError.Code, _ message: String) -> DecodedLine {
      .refused(JSONLinesError(code, message, id: id, line: number))
    }

    for member in object.members where !lineMembers.contains(member.key) {
      return refuse(
        .invalidRequest,
        "unknown member '\(excerpt(member.key))'; a line has only type, payload and id")
    }
    guard let typeValue = object["type"] else {
      return refuse(
        .invalidRequest,
        "missing 'type', e.g. {\"type\":\"sendMessage\",\"payload\":{\"query\":\"hi\"}}")
    }
    guard case .string(let type) = typeValue else {
      return refuse(.invalidRequest, "'type' must be a string, found \(typeValue.kindName)")
    }
    if resultTypes.contains(type) {
      return refuse(
        .resultType,
        "'\(excerpt(type))' is a result, which only susi itself records; send an intent instead"
      )
    }
    guard intentTypes.contains(type) else {
      var message = "no intent is called '\(excerpt(type))'"
      if let near = suggestion(for: type) { message += "; did you mean '\(near)'?" }
      return refuse(.unknownType, message)
    }
    var payload = object["payload"]
    if Privilege.accessIntents.contains(type) {
      // Who acts is the frontend's to say, never the input's.
      guard allowsAdministration else {
        return refuse(
          .adminOnly,
          "\(type) changes access; susi jsonl takes it only when started with --allow-admin")
      }
      if case .object(var fields) = payload {
        if fields["by"] != nil {
          return refuse(
            .invalidPayload,
            "payload.by: leave it out; susi jsonl records access changes as done by \(AccessControl.localOperator)"
          )
        }
        fields["by"] = .string(AccessControl.localOperator)
        payload = .object(fields)
      }
    }
    do {
      return .intent(
        try Action.decode(type: type, payload: payload, strict: true), id: id, line: number)
    } catch {
      switch error {
      case .invalidPayload(let shape): return refuse(.invalidPayload, "\(shape)")
      case .unknownType: return refuse(.unknownType, "no intent is called '\(excerpt(type))'")
      }
    }
  }

  /// The intent `type` was probably meant to be, if any.
  static func suggestion(for type: String) -> String? {
    // Only a short name can be near an intent name, and the search costs length squared.
    guard type.utf8.count <= 32 else { return nil }
    if let known = suggestions.withLock({ $0[type] }) { return known.isEmpty ? nil : known }
    let found = ParsedCommandLine.closest(to: type, in: Action.intentTypes) ?? ""
    suggestions.withLock {
      if $0.count >= 64 { $0.removeAll() }
      $0[type] = found
    }
    return found.isEmpty ? nil : found
  }

  /// `text`, cut short when long: error messages quote what was sent, but a quote need not be
  /// as long as the line.
  static func excerpt(_ text: String) -> String {
    guard text.utf8.count > 64 else { return text }
    return String(text.prefix(48)) + "…"
  }
}
