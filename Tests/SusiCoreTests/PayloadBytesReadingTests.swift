import SusiCore
import SusiJSON
import Testing

/// The codec's field rules read a payload's bytes (`BytesFieldReader`, what replay uses) into
/// exactly the action they read from its tree; whatever the bytes reader does not read, the
/// tree reads.
@Suite struct PayloadBytesReadingTests {
  static func payload(_ action: Action) -> [UInt8] {
    var w = JSONWriter()
    action.writePayload(to: &w)
    return w.bytes
  }

  /// The action read from `bytes` through the bytes reader, or nil when it did not read them.
  static func readFromBytes(_ type: ActionType, _ bytes: [UInt8]) -> Action? {
    bytes.withUnsafeBytes { raw in
      JSONReader.readWholeObject(raw, maximumDepth: Nesting.readable) {
        try Action.decodeFields(type: type, $0)
      }
    }
  }

  /// The action read from the tree of `bytes`, or nil when the text or payload is refused.
  static func readFromTree(_ type: ActionType, _ bytes: [UInt8]) -> Action? {
    guard let tree = try? JSONParser.parse(bytes, maximumDepth: Nesting.readable) else {
      return nil
    }
    return try? Action.decode(type: type.rawValue, payload: tree)
  }

  @Test func readsEveryActionTypeFromItsBytesAsFromItsTree() {
    #expect(Set(SampleActions.all.map(\.type)) == Set(ActionType.allCases))
    for action in SampleActions.all {
      let bytes = Self.payload(action)
      let fromBytes = Self.readFromBytes(action.type, bytes)
      #expect(fromBytes != nil, "not read from bytes: \(String(decoding: bytes, as: UTF8.self))")
      #expect(fromBytes == Self.readFromTree(action.type, bytes))
      #expect(fromBytes == SampleActions.redacted(action))
    }
  }

  /// Payloads as other writers may write them: whitespace, other member orders and escapes
  /// read the same; anything the bytes reader leaves (an unknown member, a repeated or escaped
  /// key, a wrong type) it refuses, and the tree decides.
  @Test(arguments: [
    (ActionType.submitRating, #"{ "stars" : 4 , "skill" : "S", "group" : "G" }"#, true),
    (.submitRating, #"{"group":"G\u0020x","skill":"S","stars":4.0,"language":null}"#, true),
    (.submitRating, #"{"group":"G","skill":"S","stars":4,"extra":[1,{"a":2}]}"#, false),
    (.submitRating, #"{"group":"G","skill":"S","stars":4,"stars":5}"#, false),
    (.submitRating, #"{"group":"G","skill":"S","st\u0061rs":4}"#, false),
    (.submitRating, #"{"group":"G","skill":"S","stars":4.5}"#, false),
    (.submitRating, #"{"group":"G","skill":"S","stars":"4"}"#, false),
    (.submitRating, #"{"group":"G","skill":"S"}"#, false),
    (.changeSettings, #"{"settings":{"theme":"dark","speechRate":1.5,"on":true,"n":3}}"#, true),
    (.changeSettings, #"{"settings":{"theme":"dark","theme":"light"}}"#, false),
    (.changeSettings, #"{"settings":{"theme":{"x":1}}}"#, false),
    (.changeSettings, #"{"settings":[]}"#, false),
    (.websearchLoaded, #"{"query":"q","results":[]}"#, true),
    (
      .websearchLoaded,
      #"{"query":"q","results":[{"title":"t","link":"l","icon":null}, {"link":"m","title":"u"}]}"#,
      true
    ),
    (.websearchLoaded, #"{"query":"q","results":[{"title":"t","link":"l","rank":1}]}"#, false),
    (.websearchLoaded, #"{"query":"q","results":[{"title":"t","link":"l"},7]}"#, false),
    (.skillLoaded, #"{"skill":{"tag":"T","group":"G","rating":null,"examples":null}}"#, true),
    (
      .ratingSubmitted,
      #"{"group":"G","skill":"S","stars":3,"ratings":{"oneStar":0,"twoStar":0,"threeStar":1,"fourStar":0,"fiveStar":0,"average":3,"total":1},"resolved":null}"#,
      true
    ),
    (.requestFailed, #"{"cause":3,"error":{"kind":"network","message":"m\n"}}"#, true),
    (
      .messageReceived, #"{"query":"q","answers":[{"type":"map","latitude":"$lat$","raw":{}}]}"#,
      false
    ),
    (.issueKey, #"{"by":"local","key":"key_1","groups":["a",1]}"#, false),
  ])
  func readsOtherWritersPayloadsAsTheTreeDoesOrLeavesThemToIt(
    type: ActionType, text: String, fromBytes: Bool
  ) {
    let bytes = Array(text.utf8)
    let read = Self.readFromBytes(type, bytes)
    #expect((read != nil) == fromBytes, "\(text)")
    if let read { #expect(read == Self.readFromTree(type, bytes), "\(text)") }
  }

  /// Each payload with each byte in turn replaced by characters that break JSON in different
  /// ways, and cut short: whenever the bytes reader reads one, the tree reads the same action.
  @Test func neverReadsADamagedPayloadOtherwiseThanTheTree() {
    for action in SampleActions.all {
      let payload = Self.payload(action)
      for cut in 0..<payload.count {
        let damaged = Array(payload[..<cut])
        if let read = Self.readFromBytes(action.type, damaged) {
          #expect(read == Self.readFromTree(action.type, damaged))
        }
      }
      for index in payload.indices {
        for replacement in [
          UInt8(ascii: "\""), UInt8(ascii: "1"), UInt8(ascii: "}"), UInt8(ascii: "]"),
          UInt8(ascii: ","), UInt8(ascii: "\\"), UInt8(ascii: " "), 0x01, 0xFF,
        ] {
          var damaged = payload
          damaged[index] = replacement
          if let read = Self.readFromBytes(action.type, damaged) {
            #expect(
              read == Self.readFromTree(action.type, damaged),
              "\(String(decoding: damaged, as: UTF8.self))")
          }
        }
      }
    }
  }
}
