import SusiJSON
import Testing

@testable import SusiCore

/// An intent (a `susi jsonl` line, a `POST /actions` body) read straight from its bytes is the
/// envelope its tree gives; what the bytes reader leaves, the tree reads, and refuses with its
/// own code and message.
@Suite struct IntentBytesReadingTests {
  static func envelope(_ action: Action, id: String = "") -> [UInt8] {
    var w = JSONWriter()
    action.writePayload(to: &w)
    let payload = String(decoding: w.bytes, as: UTF8.self)
    return Array(#"{"type":"\#(action.type.rawValue)","payload":\#(payload)\#(id)}"#.utf8)
  }

  static func ordinary(_ bytes: [UInt8]) -> IntentEnvelope? {
    bytes.withUnsafeBytes { IntentEnvelope.ordinary($0) }
  }

  static func disagreement(_ bytes: [UInt8]) -> String? {
    bytes.withUnsafeBytes { IntentEnvelope.disagreement($0) }
  }

  @Test func everyIntentThatChangesNoAccessIsReadFromItsBytesAsFromItsTree() {
    let intents = SampleActions.all.filter {
      $0.type.kind != .result && !Privilege.accessIntents.contains($0.type)
    }
    #expect(intents.count > 20)
    for action in intents {
      for id in ["", #","id":"a-1""#, #","id":{"n":[1,2.5]}"#, #","id":null"#] {
        let bytes = Self.envelope(action, id: id)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(Self.ordinary(bytes) != nil, "left to the tree: \(text)")
        #expect(Self.disagreement(bytes) == nil, "\(text)")
      }
    }
  }

  /// Envelopes as other programs write them: spacing, member order, escapes, an absent or null
  /// payload, a trailing carriage return.
  @Test(arguments: [
    #" { "payload" : { "query" : "hi" } , "type" : "sendMessage" }  "#,
    "{\"type\":\"sendMessage\",\"payload\":{\"query\":\"caf\\u00e9 \\\"x\\\"\"}}\r",
    #"{"type":"loadHistory"}"#, #"{"type":"loadHistory","payload":null,"id":7}"#,
    #"{"type":"submitRating","payload":{"group":"G","skill":"S","stars":4.0}}"#,
  ])
  func anOrdinaryEnvelopeIsReadFromItsBytes(text: String) {
    let bytes = Array(text.utf8)
    #expect(Self.ordinary(bytes) != nil)
    #expect(Self.disagreement(bytes) == nil)
  }

  /// What the bytes reader leaves to the tree: an unknown or repeated member, a type that is a
  /// result, unknown or no string, an intent that changes access, a payload that is no object or
  /// has an unknown field, text that is not JSON or not UTF-8, a value after the object.
  @Test(arguments: [
    #"{"type":"sendMessage","payload":{"query":"hi"},"extra":1}"#,
    #"{"type":"sendMessage","type":"loadHistory","payload":{"query":"hi"}}"#,
    #"{"type":"messageReceived","payload":{}}"#, #"{"type":"dance"}"#, #"{"type":7}"#,
    #"{"payload":{"query":"hi"}}"#, #"{"type":"createKey","payload":{"name":"n"}}"#,
    #"{"type":"sendMessage","payload":"hi"}"#, #"{"type":"sendMessage","payload":[]}"#,
    #"{"type":"sendMessage","payload":{"query":"hi","qurey":"x"}}"#,
    #"{"type":"sendMessage","payload":{"query":7}}"#, #"{"type":"sendMessage","payload":{}}"#,
    #"{"type":"sendMessage","payload":{"query":"\x"}}"#, #"{"type":"sendMessage""#,
    #"{"type":"loadHistory"} {}"#, #"[{"type":"loadHistory"}]"#, "",
  ])
  func anEnvelopeTheBytesReaderLeavesIsReadAsATree(text: String) {
    let bytes = Array(text.utf8)
    #expect(Self.ordinary(bytes) == nil)
    #expect(Self.disagreement(bytes) == nil)
  }

  /// Bytes around the object that JSON does not allow, or allows only as blanks: both readers
  /// take the same view of each.
  @Test(arguments: [
    [0xEF, 0xBB, 0xBF], [0x00], [0x09, 0x0A, 0x0D, 0x20], [0xC2, 0xA0], [0x0B], [0x0C],
  ])
  func bytesAroundTheObjectAreReadAlike(extra: [UInt8]) {
    let intent = Array(#"{"type":"loadHistory"}"#.utf8)
    #expect(Self.disagreement(extra + intent) == nil)
    #expect(Self.disagreement(intent + extra) == nil)
  }

  @Test func textThatIsNotUTF8IsLeftToTheTree() {
    let bytes =
      Array(#"{"type":"sendMessage","payload":{"query":"a"#.utf8) + [0xFF, 0xFE]
      + Array(#""}}"#.utf8)
    #expect(Self.ordinary(bytes) == nil)
    let refusal = bytes.withUnsafeBytes { raw in
      Result { () throws(IntentEnvelope.Refusal) in
        try IntentEnvelope.decode(raw, accessChanges: .refused(hint: "h"))
      }
    }
    guard case .failure(let refusal) = refusal else {
      Issue.record("accepted text that is not UTF-8")
      return
    }
    #expect(refusal.code == .invalidUTF8)
  }
}
