import SusiJSON
import Testing

/// Limits of the parser that text from outside reaches: exponents at the edges of `Int`, and
/// the depth a caller asks for.
@Suite struct ParserLimitTests {
  @Test(arguments: [
    "1.5e-9223372036854775808", "0.25e-9223372036854775808", "1.5e9223372036854775807",
    "12.5e-99999999999999999999", "-0.10e-9223372036854775808",
  ])
  func exponentsAtTheEdgesOfIntNeverTrap(literal: String) {
    // A Double holds none of these exactly: each is zero, refused as infinite, or kept as text.
    switch try? JSONParser.parse(literal) {
    case .number(let text)?: #expect(text == literal)
    case .double(let value)?: #expect(value == 0)
    case nil: #expect(!literal.contains("e-"))
    case let other?: Issue.record("\(other)")
    }
  }

  @Test func aCallerChoosesHowDeepTextMayNest() {
    let deep = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
    #expect((try? JSONParser.parse(Array(deep.utf8), maximumDepth: 10)) != nil)
    #expect(throws: JSONParseError.self) {
      try JSONParser.parse(Array(deep.utf8), maximumDepth: 9)
    }
    let deeper = String(repeating: "[", count: 260) + String(repeating: "]", count: 260)
    #expect(throws: JSONParseError.self) { try JSONParser.parse(deeper) }
    #expect((try? JSONParser.parse(Array(deeper.utf8), maximumDepth: 264)) != nil)
  }
}
