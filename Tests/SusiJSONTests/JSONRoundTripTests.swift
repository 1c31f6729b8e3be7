import SusiCrypto
import SusiJSON
import Testing

@Suite struct JSONRoundTripTests {
  @Test func parsingWhatWasWrittenGivesTheSameValue() throws {
    var generator = SeededRandom(seed: 0x5151)
    for i in 0..<500 {
      let value = RandomJSON.value(depth: 4, using: &generator)
      let parsed = try JSONParser.parse(value.compactBytes)
      #expect(parsed == value, "case \(i): \(value.compactText)")
    }
  }

  @Test func writingWhatWasParsedGivesTheSameBytes() throws {
    var generator = SeededRandom(seed: 7)
    for i in 0..<500 {
      let bytes = RandomJSON.value(depth: 4, using: &generator).compactBytes
      #expect(try JSONParser.parse(bytes).compactBytes == bytes, "case \(i)")
    }
  }

  @Test func prettyTextParsesBackToTheSameValue() throws {
    var generator = SeededRandom(seed: 99)
    for i in 0..<200 {
      let value = RandomJSON.value(depth: 4, using: &generator)
      #expect(try JSONParser.parse(value.prettyText()) == value, "case \(i)")
    }
  }

  @Test func everyStringOfSingleScalarsRoundTrips() throws {
    // Every ASCII character, and characters around the UTF-8 length boundaries.
    var scalars = (0...0x7F).compactMap(Unicode.Scalar.init)
    scalars += [0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF]
      .compactMap { Unicode.Scalar(UInt32($0)) }
    for scalar in scalars {
      let value = JSON.string("a\(Character(scalar))b")
      #expect(
        try JSONParser.parse(value.compactBytes) == value, "U+\(String(scalar.value, radix: 16))")
    }
  }
}

/// Random JSON values for round-trip checks: every kind, awkward strings and numbers.
enum RandomJSON {
  static func value(depth: Int, using g: inout SeededRandom) -> JSON {
    let kinds = depth > 0 ? 7 : 5
    switch Int.random(in: 0..<kinds, using: &g) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &g))
    case 2: return .int(integer(using: &g))
    case 3: return .double(fraction(using: &g))
    case 4: return .string(string(using: &g))
    case 5:
      return .array(
        (0..<Int.random(in: 0...4, using: &g)).map { _ in value(depth: depth - 1, using: &g) })
    default:
      var object = JSONObject()
      for _ in 0..<Int.random(in: 0...5, using: &g) {
        object[string(using: &g)] = value(depth: depth - 1, using: &g)
      }
      return .object(object)
    }
  }

  static func integer(using g: inout SeededRandom) -> Int {
    switch Int.random(in: 0..<4, using: &g) {
    case 0: [0, 1, -1, Int.max, Int.min, 9, 10, -10].randomElement(using: &g)!
    case 1: Int.random(in: -1000...1000, using: &g)
    default: Int(truncatingIfNeeded: g.next())
    }
  }

  static func fraction(using g: inout SeededRandom) -> Double {
    switch Int.random(in: 0..<4, using: &g) {
    case 0:
      return [
        0.0, -0.0, 0.5, 1.0, 1e300, -1e-300, Double.leastNonzeroMagnitude,
        Double.greatestFiniteMagnitude, 0.1,
      ]
      .randomElement(using: &g)!
    case 1:
      return Double.random(in: -1000...1000, using: &g)
    default:
      // Any finite bit pattern, subnormals included.
      while true {
        let d = Double(bitPattern: g.next())
        if d.isFinite { return d }
      }
    }
  }

  static func string(using g: inout SeededRandom) -> String {
    let pieces = [
      "", "a", "key", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "€", "😀",
      "\u{10FFFF}", " ", "\\u0041", "{}", "[,]",
    ]
    var text = ""
    for _ in 0..<Int.random(in: 0...5, using: &g) {
      if Bool.random(using: &g) {
        text += pieces.randomElement(using: &g)!
      } else {
        // Any scalar; surrogate code points are not scalars and are skipped.
        if let scalar = Unicode.Scalar(UInt32.random(in: 0...0x10FFFF, using: &g)) {
          text.unicodeScalars.append(scalar)
        }
      }
    }
    return text
  }
}

extension JSONRoundTripTests {
  @Test(arguments: [
    "12345678901234567890", "123456789012345678901234567890", "-98765432109876543210.5",
    "0.10000000000000001", "1e-400",
  ])
  func writesANumberNoDoubleHoldsBackVerbatim(literal: String) throws {
    let text = #"{"id":"# + literal + "}"
    #expect(try JSONParser.parse(text).compactText == text)
  }
}
