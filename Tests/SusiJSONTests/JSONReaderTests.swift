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

  /// The parser's and the reader's verdicts on `text`: equal values, or both refusing; with
  /// `strings`, the reader makes its strings through that cache.
  private func agree(
    _ text: String, strings: JSONStringCache? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let bytes = Array(text.utf8)
    let parsed = try? JSONParser.parse(bytes)
    bytes.withUnsafeBytes { raw in
      var reader = JSONReader(raw, strings: strings)
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

  /// Strings around the lengths the cache keeps (16 to 256 bytes), with escapes, non-ASCII text
  /// and invalid UTF-8, each read twice through one cache: the same values and refusals as the
  /// parser's, whether or not the cache holds them.
  @Test func readsStringsThroughACacheAsTheParserDoes() {
    let cache = JSONStringCache()
    var texts = Self.texts
    for length in [15, 16, 17, 40, 255, 256, 257] {
      let plain = String(repeating: "a", count: length - 1) + "z"
      texts.append("\"\(plain)\"")
      texts.append("[\"\(plain)\",\"\(plain)x\",\"\(plain)\"]")
      texts.append("\"caf\u{e9} \(plain)\"")
      texts.append("\"\(plain)\\n\"")
      texts.append("\"\(plain)\\u0041\"")
      texts.append("\"\(plain)\\ud800\"")
      texts.append("{\"\(plain)\":\"\(plain)\"}")
    }
    for _ in 0..<2 {
      for text in texts { agree(text, strings: cache) }
    }
    for bytes: [UInt8] in [Array(#""0123456789abcdef"#.utf8) + [0xFF, 0x22]] {
      bytes.withUnsafeBytes { raw in
        var reader = JSONReader(raw, strings: cache)
        #expect(throws: JSONParseError.self) { _ = try reader.string() }
      }
    }
  }

  @Test func handsBackTheStringItKeptForTheSameBytes() throws {
    let text =
      #"["I don't know the answer to that question.","I don't know the answer to that question."]"#
    let cache = JSONStringCache()
    let (first, second) = try Array(text.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw, strings: cache)
      try reader.enterArray()
      _ = try reader.nextElement()
      let first = try reader.string()
      _ = try reader.nextElement()
      return (first, try reader.string())
    }
    #expect(first == "I don't know the answer to that question.")
    #expect(second == first)
    // One buffer for both: the second read made no string of its own.
    let firstStart = first.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
    let secondStart = second.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
    #expect(firstStart != nil && firstStart == secondStart)
  }

  @Test func readsNumbersAsTheParserDoes() throws {
    let numbers = [
      "1", "7", "42", "12345678901234567", "123456789012345678", "9223372036854775807",
      "9223372036854775808", "0", "-3", "1.5", "2e3", "2E3", "10.0",
    ]
    for text in numbers {
      let parsed = try JSONParser.parse(Array("[\(text)]".utf8))
      try Array("[\(text)]".utf8).withUnsafeBytes { raw in
        var reader = JSONReader(raw)
        try reader.enterArray()
        _ = try reader.nextElement()
        let read = try reader.number()
        #expect([read] == parsed.array ?? [], "\(text)")
      }
    }
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

  @Test func findsTheMemberAWriterPutsNextByItsBytes() throws {
    let text = #"{"v":2,"query":"hi","q":1, "spaced":2,"\u0071":3,"last":4}"#
    try Array(text.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      try reader.enterObject()
      let found1 = reader.nextKey(is: "query")
      #expect(!found1, "not the first member")
      let found2 = reader.nextKey(is: "v")
      #expect(found2)
      #expect(try reader.int() == 2)
      let found3 = reader.nextKey(is: "quer")
      #expect(!found3, "a prefix is not the key")
      let found4 = reader.nextKey(is: "queryX")
      #expect(!found4)
      let found5 = reader.nextKey(is: "query")
      #expect(found5)
      #expect(try reader.string() == "hi")
      let found6 = reader.nextKey(is: "q")
      #expect(found6)
      #expect(try reader.int() == 1)
      // Whitespace and escapes are left to nextKey, which then reads the key.
      let found7 = reader.nextKey(is: "spaced")
      #expect(!found7)
      let spaced = try #require(try reader.nextKey())
      #expect(spaced == "spaced")
      #expect(try reader.int() == 2)
      let found8 = reader.nextKey(is: "q")
      #expect(!found8)
      let escaped = try #require(try reader.nextKey())
      #expect(escaped.hasEscapes)
      #expect(try reader.int() == 3)
      let found9 = reader.nextKey(is: "last")
      #expect(found9)
      #expect(try reader.int() == 4)
      let found10 = reader.nextKey(is: "last")
      #expect(!found10, "the object has ended")
      #expect(try reader.nextKey() == nil)
      try reader.finish()
    }
  }

  @Test(arguments: [
    "1", "7", "42", "1234567890", "12345678901234567", "123456789012345678",
    "9223372036854775807", "9223372036854775808", "-5", "0", "00", "01", "1.5", "1e3", "1E3",
    "2.", "12 ", "12,", "12]", "-", "x",
  ])
  func readsIntegersAsTheParserDoes(_ number: String) {
    // In an array, so that something follows the number.
    let text = "[" + number + "]"
    let parsed = try? JSONParser.parse(text)
    Array(text.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      var read: Int?
      do {
        try reader.enterArray()
        _ = try reader.nextElement()
        read = try reader.int()
        // Whatever follows the number must end the array, as `[n]` does.
        if try reader.nextElement() { read = nil }
        try reader.finish()
      } catch {
        read = nil
      }
      if case .array(let elements) = parsed, elements.count == 1, case .int(let value) = elements[0]
      {
        #expect(read == value, "\(number)")
      } else {
        #expect(read == nil, "\(number)")
      }
    }
  }
}
