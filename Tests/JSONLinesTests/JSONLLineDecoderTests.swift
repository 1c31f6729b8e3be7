import SusiCore
import SusiJSON
import Testing

@testable import SusiJSONLines

@Suite struct JSONLLineDecoderTests {
  private func decode(_ text: String) -> DecodedLine {
    decode(bytes: Array(text.utf8))
  }

  private func decode(bytes: [UInt8]) -> DecodedLine {
    LineDecoder.decode(InputLine(number: 7, content: .text(bytes[...])), maximumLineLength: 1 << 20)
  }

  private func refusal(_ text: String) -> JSONLinesError? {
    refusal(bytes: Array(text.utf8))
  }

  private func refusal(bytes: [UInt8]) -> JSONLinesError? {
    if case .refused(let error) = decode(bytes: bytes) { error } else { nil }
  }

  private func decode(admin text: String) -> DecodedLine {
    LineDecoder.decode(
      InputLine(number: 3, content: .text(Array(text.utf8)[...])), maximumLineLength: 1 << 20,
      allowsAdministration: true)
  }

  @Test func refusesAccessChangesWithoutAllowAdminWhateverActorTheLineNames() {
    let lines = [
      #"{"type":"grantPrivilege","payload":{"by":"key_0123456789abcdef","group":"default","privilege":"subscribers.manage"}}"#,
      #"{"type":"revokeKey","payload":{"by":"key_0123456789abcdef","key":"key_0123456789abcdef"},"id":2}"#,
      #"{"type":"createAccessGroup","payload":{"group":"ops"}}"#,
      #"{"type":"issueKey","payload":{"key":"key_0123456789abcdef","groups":["admin"]}}"#,
      #"{"type":"revokePrivilege","payload":{"group":"default","privilege":"search"}}"#,
    ]
    for line in lines {
      #expect(refusal(line)?.code == .adminOnly, "\(line)")
      #expect(refusal(line)?.message.contains("--allow-admin") == true)
    }
    #expect(refusal(lines[1])?.id == 2)
  }

  @Test func withAllowAdminAccessChangesAreDoneByLocal() {
    guard
      case .intent(let action, _, _) = decode(
        admin: #"{"type":"grantPrivilege","payload":{"group":"default","privilege":"search"}}"#)
    else {
      Issue.record("expected an intent")
      return
    }
    #expect(action == .grantPrivilege(.init(by: "local", group: "default", privilege: "search")))
    guard
      case .refused(let error) = decode(
        admin:
          #"{"type":"revokeKey","payload":{"by":"key_0123456789abcdef","key":"key_0123456789abcdef"}}"#
      )
    else {
      Issue.record("a line naming its own actor is refused")
      return
    }
    #expect(error.code == .invalidPayload)
    #expect(error.message.contains("payload.by"))
  }

  @Test func decodesAnIntentWithItsId() {
    guard
      case .intent(let action, let id, let line) = decode(
        #"{"type":"sendMessage","payload":{"query":"hi"},"id":{"n":[1]}}"#)
    else {
      Issue.record("expected an intent")
      return
    }
    #expect(action == .sendMessage(.init(query: "hi")))
    #expect(id == ["n": [1]])
    #expect(line == 7)
  }

  @Test func acceptsAMissingPayloadForIntentsWithoutRequiredFields() {
    guard case .intent(let action, let id, _) = decode(#"{"type":"logout"}"#) else {
      Issue.record("expected an intent")
      return
    }
    #expect(action == .logout)
    #expect(id == nil)
    guard case .intent(.loadSkills(let p), _, _) = decode(#"{"type":"loadSkills","id":null}"#)
    else {
      Issue.record("expected loadSkills")
      return
    }
    #expect(p == .init())
  }

  @Test func toleratesACarriageReturnAndIgnoresBlankLines() {
    guard case .intent(.syncSettings, _, _) = decode("{\"type\":\"syncSettings\"}\r") else {
      Issue.record("expected an intent")
      return
    }
    for blank in ["", "\r", "   ", " \t \r"] {
      guard case .blank = decode(blank) else {
        Issue.record("'\(blank)' should be blank")
        return
      }
    }
  }

  @Test(arguments: [
    ("{\"type\":", JSONLinesError.Code.invalidJSON),
    ("hello", .invalidJSON),
    ("{\"type\":\"logout\"} {}", .invalidJSON),
    ("[1,2]", .notAnObject),
    ("42", .notAnObject),
    ("\"sendMessage\"", .notAnObject),
    ("null", .notAnObject),
    ("{}", .invalidRequest),
    ("{\"type\":7}", .invalidRequest),
    ("{\"type\":\"logout\",\"seq\":3}", .invalidRequest),
    ("{\"type\":\"sendMesage\",\"payload\":{\"query\":\"hi\"}}", .unknownType),
    ("{\"type\":\"\"}", .unknownType),
    ("{\"type\":\"messageReceived\",\"payload\":{\"query\":\"hi\",\"answers\":[]}}", .resultType),
    ("{\"type\":\"actionRejected\",\"payload\":{\"reason\":\"x\"}}", .resultType),
    ("{\"type\":\"sendMessage\"}", .invalidPayload),
    ("{\"type\":\"sendMessage\",\"payload\":{\"query\":5}}", .invalidPayload),
    ("{\"type\":\"sendMessage\",\"payload\":{\"query\":\"hi\",\"extra\":1}}", .invalidPayload),
    ("{\"type\":\"sendMessage\",\"payload\":[\"hi\"]}", .invalidPayload),
    (
      "{\"type\":\"submitRating\",\"payload\":{\"group\":\"g\",\"skill\":\"s\",\"stars\":\"5\"}}",
      .invalidPayload
    ),
    ("{\"type\":\"logout\",\"payload\":{\"now\":true}}", .invalidPayload),
  ])
  func refusesMalformedLines(text: String, code: JSONLinesError.Code) {
    let error = refusal(text)
    #expect(error?.code == code, "\(text)")
    #expect(error?.line == 7)
    #expect(error?.message.isEmpty == false)
  }

  @Test func refusesInvalidUTF8InsideAndOutsideStrings() {
    let inString =
      Array(#"{"type":"sendMessage","payload":{"query":""#.utf8) + [0xff, 0xfe]
      + Array(#""}}"#.utf8)
    #expect(refusal(bytes: inString)?.code == .invalidUTF8)
    #expect(refusal(bytes: [0xc3])?.code == .invalidUTF8)
    #expect(refusal(bytes: [0xed, 0xa0, 0x80])?.code == .invalidUTF8)  // a UTF-16 surrogate
  }

  @Test func echoesTheIdOfARefusedObjectAndNullOtherwise() {
    #expect(refusal(#"{"type":"nope","id":"abc"}"#)?.id == "abc")
    #expect(refusal(#"{"type":"loggedOut","id":[1,{"x":null}]}"#)?.id == [1, ["x": nil]])
    #expect(refusal(#"{"id":5}"#)?.id == 5)
    #expect(refusal(#"[{"id":5}]"#)?.id == nil)
    #expect(refusal(#"{"id":5,"#)?.id == nil)
  }

  @Test func suggestsTheIntentATypoWasMeantToBe() {
    #expect(
      refusal(#"{"type":"sendMesage"}"#)?.message.contains("did you mean 'sendMessage'?") == true)
  }

  @Test func namesTheOffendingPayloadField() {
    let error = refusal(#"{"type":"submitRating","payload":{"group":"g","skill":"s","stars":"5"}}"#)
    #expect(error?.message == "payload.stars: expected an integer, found a string")
  }

  @Test func refusesATooLongLineByLength() {
    let decoded = LineDecoder.decode(
      InputLine(number: 3, content: .tooLong(length: 2_000_000)), maximumLineLength: 1 << 20)
    guard case .refused(let error) = decoded else {
      Issue.record("expected a refusal")
      return
    }
    #expect(error.code == .lineTooLong)
    #expect(error.id == nil)
    #expect(error.line == 3)
    #expect(error.message.contains("2000000"))
  }

  @Test func encodesAnErrorAsOneCompactObject() {
    let error = JSONLinesError(.unknownType, "no intent is called \"x\"", id: ["a": 1], line: 2)
    #expect(
      String(decoding: error.encoded(), as: UTF8.self)
        == #"{"id":{"a":1},"error":{"code":"unknown_type","message":"no intent is called \"x\"","line":2}}"#
    )
    let anonymous = JSONLinesError(.invalidJSON, "bad", line: 1)
    #expect(
      String(decoding: anonymous.encoded(), as: UTF8.self)
        == #"{"id":null,"error":{"code":"invalid_json","message":"bad","line":1}}"#)
  }

  @Test func neverEchoesAPasswordInAnError() {
    let error = refusal(
      #"{"type":"login","payload":{"email":"a@b.c","password":"hunter2","extra":1}}"#)
    #expect(error?.code == .invalidPayload)
    #expect(
      error.map { String(decoding: $0.encoded(), as: UTF8.self).contains("hunter2") } == false)
  }

  @Test func quotesOnlyTheStartOfALongUnknownType() {
    let long = String(repeating: "x", count: 5000)
    let error = refusal(#"{"type":"\#(long)"}"#)
    #expect(error?.code == .unknownType)
    #expect((error?.message.count ?? .max) < 200)
  }
}
