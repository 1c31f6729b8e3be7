import SusiJSON
import Testing

@Suite struct JSONReaderTests {
  /// Builds the tree of the text through the reader's token calls only, refusing repeated keys
  /// as the parser does.
  private static func tree(_ r: inout JSONReader) throws -> JSON {
    switch try r.kind() {
    case .object:
      try r.enterObject()
      var pairs: [(String, JSON)] = []
      while let key = try r.nextKey() {
        let name = String(decoding: key.bytes, as: UTF8.self)
        guard !key.hasEscapes else { throw Unsupported() }
        guard !pairs.contains(where: { $0.0 == name }) else { throw Unsupported() }
        pairs.append((name, try tree(&r)))
      }
      return .object(JSONObject(pairs))
    case .array:
      try r.enterArray()
      var elements: [JSON] = []
      while try r.nextElement() { elements.append(try tree(&r)) }
      return .array(elements)
    case .string: return .string(try r.string())
    case .number: return try r.number()
    case .bool: return .bool(try r.bool())
    case .null:
      #expect(try r.null())
      return .null
    }
  }

  private struct Unsupported: Error {}

  /// The parser's and the reader's verdicts on `text`: equal values, or both refusing.
  private func agree(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let bytes = Array(text.utf8)
    let parsed = try? JSONParser.parse(bytes)
    bytes.withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      let read: JSON?
      do {
        let value = try Self.tree(&reader)
        try reader.finish()
        read = value
      } catch is Unsupported {
        return
      } catch {
        read = nil
      }
      #expect(read == parsed, "\(text)", sourceLocation: sourceLocation)
    }
  }

  static let texts: [String] = [
    "true", "false", "null", "0", "-0", "1.5", "-1.25E-3", "1e-400", "9223372036854775808",
    #""plain""#, #""esc\n\u00e9\ud83d\ude00""#, #""caf\#u{e9}""#, "[]", "{}", " [ 1 , 2 ] ",
    #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#, #"{ "a" : { } , "b" : [ [ ] ] }"#,
    // Refused by both.
    "", "[", "]", "[1,]", "[,1]", "{,}", #"{"a":1,}"#, #"{"a"}"#, #"{"a":}"#, #"{1:2}"#,
    "[1 2]", #"{"a":1 "b":2}"#, "01", "1.", "+1", "1e400", "tru", "nul", #""open"#,
    "\"tab\there\"", #""\x""#, #""\ud800""#, "[1]]", "{}}", "[] x",
  ]

  @Test(arguments: texts)
  func readsWhatTheParserReadsAndRefusesWhatItRefuses(text: String) {
    agree(text)
  }

  @Test func refusesInvalidUTF8InKeysAndStrings() {
    for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D]] {
      bytes.withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        #expect(throws: JSONParseError.self) {
          if try reader.kind() == .object {
            try reader.enterObject()
            _ = try reader.nextKey()
          } else {
            _ = try reader.string()
          }
        }
      }
    }
  }

  @Test func refusesNestingDeeperThanItsLimit() {
    let text = String(repeating: "[", count: 5) + String(repeating: "]", count: 5)
    Array(text.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw, maximumDepth: 4)
      #expect(throws: JSONParseError.self) {
        for _ in 0..<5 { try reader.enterArray() }
      }
      var whole = JSONReader(raw, maximumDepth: 4)
      #expect(throws: JSONParseError.self) { _ = try whole.value() }
      var enough = JSONReader(raw, maximumDepth: 5)
      #expect((try? enough.value()) == [[[[[]]]]])
    }
  }

  @Test func comparesKeysWithoutMakingStrings() throws {
    let text = #"{"type":"answer","ty\u0070e":1}"#
    try Array(text.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      try reader.enterObject()
      let first = try #require(try reader.nextKey())
      #expect(first == "type")
      #expect(!(first == "typ"))
      #expect(!(first == "t"))
      #expect(try reader.string() == "answer")
      let escaped = try #require(try reader.nextKey())
      #expect(escaped.hasEscapes)
      #expect(!(escaped == "type"))
      try reader.skipValue()
      #expect(try reader.nextKey() == nil)
      try reader.finish()
    }
  }

  @Test func comparesOneCharacterKeys() throws {
    try Array(#"{"v":2}"#.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      try reader.enterObject()
      let key = try #require(try reader.nextKey())
      #expect(key == "v")
      #expect(!(key == "w"))
    }
  }

  @Test func goesBackToAPositionToReadAValueASecondWay() throws {
    let text = #"[{"a":1},2]"#
    try Array(text.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      try reader.enterArray()
      #expect(try reader.nextElement())
      let start = reader.position
      try reader.enterObject()
      _ = try reader.nextKey()
      reader.restore(start)
      #expect(try reader.value() == ["a": 1])
      #expect(try reader.nextElement())
      #expect(try reader.int() == 2)
      #expect(try !reader.nextElement())
      try reader.finish()
    }
  }

  @Test func refusesAFractionWhereAnIntegerIsAsked() {
    Array("2.5".utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      #expect(throws: JSONParseError.self) { _ = try reader.int() }
    }
  }
}
