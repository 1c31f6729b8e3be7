import SusiJSON
import Testing

@Suite struct JSONParserRejectionTests {
  /// Parses `bytes`, which must fail, and returns the error.
  private func failure(_ bytes: [UInt8]) -> JSONParseError? {
    do {
      let value = try JSONParser.parse(bytes)
      Issue.record("parsed as \(value)")
      return nil
    } catch {
      return error
    }
  }

  private func failure(_ text: String) -> JSONParseError? { failure(Array(text.utf8)) }

  private func expectFailure(
    _ bytes: [UInt8], offset: Int, reason: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let error = failure(bytes)
    #expect(error?.reason == reason, sourceLocation: sourceLocation)
    #expect(error?.offset == offset, sourceLocation: sourceLocation)
  }

  private func expectFailure(
    _ text: String, offset: Int, reason: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    expectFailure(Array(text.utf8), offset: offset, reason: reason, sourceLocation: sourceLocation)
  }

  @Test(arguments: [
    ("", 0, "unexpected end of input"), ("   ", 3, "unexpected end of input"),
    ("01", 1, "unexpected text after the JSON value"),
    ("-01", 2, "unexpected text after the JSON value"),
    ("00", 1, "unexpected text after the JSON value"), ("1.", 2, "invalid number"),
    ("1.e3", 2, "invalid number"), (".5", 0, "unexpected character"), ("-", 1, "invalid number"),
    ("-a", 1, "invalid number"), ("+1", 0, "unexpected character"), ("1e", 2, "invalid number"),
    ("1e+", 3, "invalid number"), ("0x10", 1, "unexpected text after the JSON value"),
    ("Infinity", 0, "unexpected character"), ("NaN", 0, "unexpected character"),
    ("-Infinity", 1, "invalid number"), ("1e400", 0, "number out of range"),
    ("-1e400", 0, "number out of range"), ("[1, 2e999]", 4, "number out of range"),
  ])
  func refusesMalformedNumbers(text: String, offset: Int, reason: String) {
    expectFailure(text, offset: offset, reason: reason)
  }

  @Test(arguments: [
    (#"{"a":1,"b":2,"a":3}"#, 13, #"duplicate key "a""#),
    (#"{"x":{"a":1,"a":1}}"#, 12, #"duplicate key "a""#),
    (
      "{" + (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + #","k3":0}"#, 161,
      #"duplicate key "k3""#
    ),
  ])
  func refusesARepeatedKey(text: String, offset: Int, reason: String) {
    expectFailure(text, offset: offset, reason: reason)
  }

  @Test(arguments: [
    ("[1,]", 3, "unexpected character"), (#"{"a":1,}"#, 7, "expected a string key"),
    ("[,1]", 1, "unexpected character"), ("[1 2]", 3, "expected ',' or ']'"),
    (#"{"a" 1}"#, 5, "expected ':'"), (#"{"a":1 "b":2}"#, 7, "expected ',' or '}'"),
    ("{1:2}", 1, "expected a string key"), ("{'a':1}", 1, "expected a string key"),
    ("[", 1, "unexpected end of input"), ("[1", 2, "unexpected end of input in an array"),
    (#"{"a":1"#, 6, "unexpected end of input in an object"), ("{", 1, "expected a string key"),
    (#"{"a":"#, 5, "unexpected end of input"), ("]", 0, "unexpected character"),
    ("[1]]", 3, "unexpected text after the JSON value"),
    ("[1]x", 3, "unexpected text after the JSON value"),
    ("1 2", 2, "unexpected text after the JSON value"),
  ])
  func refusesMalformedContainers(text: String, offset: Int, reason: String) {
    expectFailure(text, offset: offset, reason: reason)
  }

  @Test(arguments: [
    ("tru", 0, "unexpected end of input"), ("trux", 0, "invalid literal"),
    ("nul", 0, "unexpected end of input"), ("nulL", 0, "invalid literal"),
    ("True", 0, "unexpected character"), ("truefalse", 4, "unexpected text after the JSON value"),
    ("undefined", 0, "unexpected character"),
  ])
  func refusesMalformedLiterals(text: String, offset: Int, reason: String) {
    expectFailure(text, offset: offset, reason: reason)
  }

  @Test(arguments: [
    (#""abc"#, 0, "unterminated string"), (#""a\"#, 0, "unterminated string"),
    (#"["a\n"#, 1, "unterminated string"), (#""\x""#, 2, "invalid escape"),
    (#""\'""#, 2, "invalid escape"), (#""\u12""#, 3, "truncated \\u escape"),
    (#""\u12G4""#, 5, "invalid \\u escape"), (#""\uD800""#, 7, "lone surrogate in \\u escape"),
    (#""\uD800x""#, 7, "lone surrogate in \\u escape"),
    (#""\uD800\u0041""#, 13, "lone surrogate in \\u escape"),
    (#""\uD800\uD800""#, 13, "lone surrogate in \\u escape"),
    (#""\uDC00""#, 7, "lone surrogate in \\u escape"),
    (#""\uDFFF\uD800""#, 7, "lone surrogate in \\u escape"),
  ])
  func refusesMalformedEscapes(text: String, offset: Int, reason: String) {
    expectFailure(text, offset: offset, reason: reason)
  }

  @Test(arguments: [
    ("\"a\u{01}b\"", 2), ("\"\t\"", 1), ("\"\n\"", 1), ("\"\u{1F}\"", 1), ("\"\\n\u{01}\"", 3),
    ("{\"a\u{0}\":1}", 3),
  ])
  func refusesRawControlCharactersInStrings(text: String, offset: Int) {
    expectFailure(text, offset: offset, reason: "control character in a string")
  }

  @Test(arguments: [
    ("\u{0C}1", 0), ("\u{A0}1", 0), ("\u{0B}1", 0), ("1\u{0C}", 1), ("[1,\u{A0}2]", 3),
  ])
  func refusesWhitespaceJSONDoesNotAllow(text: String, offset: Int) {
    #expect(failure(text)?.offset == offset)
  }

  /// Invalid UTF-8 inside a string is reported at the string's first byte.
  @Test(
    arguments: [
      ([0x22, 0xFF, 0x22], 1),  // a byte that never occurs in UTF-8
      ([0x5B, 0x22, 0x61, 0xC3, 0x22, 0x5D], 2),  // a sequence cut short by the quote
      ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong encoding of '/'
      ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // a UTF-16 surrogate encoded in UTF-8
      ([0x22, 0xE2, 0x82, 0x22], 1),  // three-byte sequence missing its last byte
      ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // beyond U+10FFFF
      ([0x22, 0x80, 0x22], 1),  // a lone continuation byte
      ([0x22, 0x5C, 0x6E, 0xFF, 0x22], 1),  // after an escape (the copying path)
      ([0x7B, 0x22, 0xFE, 0x22, 0x3A, 0x31, 0x7D], 2),  // in a key
    ] as [([UInt8], Int)])
  func refusesInvalidUTF8InStrings(bytes: [UInt8], offset: Int) {
    expectFailure(bytes, offset: offset, reason: "invalid UTF-8 in a string")
  }

  @Test func refusesInvalidUTF8OutsideStrings() {
    expectFailure([0xFF], offset: 0, reason: "unexpected character")
    // A byte-order mark is not JSON whitespace.
    expectFailure([0xEF, 0xBB, 0xBF, 0x31], offset: 0, reason: "unexpected character")
  }

  @Test func refusesNestingBeyondTheLimit() {
    let depth = JSONParser.maximumDepth + 1
    let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    expectFailure(text, offset: depth - 1, reason: "nesting too deep")
  }

  @Test func refusesHostileNestingWithoutExhaustingTheStack() {
    let arrays = [UInt8](repeating: UInt8(ascii: "["), count: 200_000)
    #expect(failure(arrays)?.reason == "nesting too deep")
    let objects = String(repeating: #"{"a":"#, count: 100_000)
    #expect(failure(objects)?.reason == "nesting too deep")
    let mixed = String(repeating: #"[{"a":"#, count: 50_000)
    #expect(failure(mixed)?.reason == "nesting too deep")
  }

  @Test func describesTheProblemAndItsByteOffset() {
    #expect(failure("[1,]")?.description == "unexpected character at byte 3")
  }

  @Test func parsesValidInputAfterAFailure() throws {
    // The parser keeps no state between calls.
    _ = failure(#""\u12G4""#)
    #expect(try JSONParser.parse(#""\u0041""#) == "A")
  }
}
