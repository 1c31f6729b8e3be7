import SusiJSON
import Testing

@Suite struct JSONParserAcceptanceTests {
  private func parse(_ text: String) throws -> JSON { try JSONParser.parse(text) }

  @Test func parsesLiterals() throws {
    #expect(try parse("true") == .bool(true))
    #expect(try parse("false") == .bool(false))
    #expect(try parse("null") == .null)
  }

  @Test(arguments: [
    ("0", JSON.int(0)), ("-0", .int(0)), ("1", .int(1)), ("-1", .int(-1)), ("123", .int(123)),
    ("1.5", .double(1.5)), ("-1.5", .double(-1.5)), ("1.0", .double(1.0)), ("0.0", .double(0)),
    ("1e2", .double(100)), ("1E2", .double(100)), ("1e+2", .double(100)), ("1e-2", .double(0.01)),
    ("1.5e3", .double(1500)), ("0e0", .double(0)), ("-1.25E-3", .double(-0.00125)),
    ("1e-400", .number("1e-400")),
    ("9223372036854775807", .int(Int.max)), ("-9223372036854775808", .int(Int.min)),
    ("9223372036854775808", .number("9223372036854775808")),
    ("-9223372036854775809", .number("-9223372036854775809")),
    ("18446744073709551616", .number("18446744073709551616")),
    ("123456789012345678901234567890", .number("123456789012345678901234567890")),
  ])
  func parsesNumbers(text: String, expected: JSON) throws {
    #expect(try parse(text) == expected)
  }

  @Test func keepsIntegersApartFromFractions() throws {
    guard case .int = try parse("42") else {
      Issue.record("42 is not an integer")
      return
    }
    guard case .double = try parse("42.0") else {
      Issue.record("42.0 is not a fraction")
      return
    }
    guard case .double = try parse("4e1") else {
      Issue.record("4e1 is not a fraction")
      return
    }
  }

  @Test func keepsTheSignOfNegativeZeroFractions() throws {
    guard case .double(let d) = try parse("-0.0") else {
      Issue.record("-0.0 is not a fraction")
      return
    }
    #expect(d == 0 && d.sign == .minus)
  }

  @Test func parsesEveryShortEscape() throws {
    #expect(try parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
  }

  @Test(arguments: [
    (#""\u0041""#, "A"), (#""\u00e9""#, "é"), (#""\u00E9""#, "é"), (#""\u20AC""#, "€"),
    (#""\u0000""#, "\u{0}"), (#""\uD83D\uDE00""#, "😀"), (#""\ud834\udd1e""#, "𝄞"),
    (#""a\u0062c""#, "abc"), (#""\uFFFF""#, "\u{FFFF}"),
  ])
  func parsesUnicodeEscapes(text: String, expected: String) throws {
    #expect(try parse(text) == .string(expected))
  }

  @Test func parsesRawUTF8InStrings() throws {
    #expect(try parse("\"é€😀\"") == .string("é€😀"))
    // Non-ASCII text after an escape takes the copying path.
    #expect(try parse("\"\\n é€😀\"") == .string("\n é€😀"))
    #expect(try parse("\"\u{7F}\"") == .string("\u{7F}"))
    #expect(try parse("\"\"") == .string(""))
  }

  @Test func parsesNestedContainers() throws {
    let value = try parse(#"{"a":[1,{"b":null},[]],"c":{}}"#)
    #expect(value == ["a": [1, ["b": nil], []], "c": [:]])
  }

  @Test func allowsTheFourWhitespaceCharactersEverywhere() throws {
    let text = " \t\n\r[ 1 ,\n{ \"a\"\t:\r[ ] } ,\"x\" ] \r\n"
    #expect(try parse(text) == [1, ["a": []], "x"])
  }

  @Test func keepsMembersInTheirWrittenOrder() throws {
    let value = try parse(#"{"b":1,"a":2,"c":3}"#)
    #expect(value.object?.keys == ["b", "a", "c"])
  }

  @Test func keepsTheLastValueOfARepeatedKeyWhenAsked() throws {
    let members = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    for text in [#"{"a":1,"b":2,"a":3}"#, "{\(members),\"a\":1,\"k3\":\"last\",\"a\":3}"] {
      let value = try Array(text.utf8).withUnsafeBytes {
        try JSONParser.parse($0, repeatedKeys: .keepLast)
      }
      #expect(value["a"] == 3)
      #expect(value.object?.keys.filter { $0 == "a" }.count == 1)
    }
  }

  @Test func keepsANumberNoIntOrDoubleHoldsAsItsText() throws {
    #expect(try parse("12345678901234567890") == .number("12345678901234567890"))
    #expect(
      try parse("-123456789012345678901234567890") == .number("-123456789012345678901234567890"))
    #expect(try parse("0.10000000000000001") == .number("0.10000000000000001"))
    #expect(try parse("1e-400") == .number("1e-400"))
  }

  @Test func makesDoublesOfNumbersADoubleHolds() throws {
    #expect(try parse("2.5") == .double(2.5))
    #expect(try parse("1e20") == .double(1e20))
    #expect(try parse("-1.50E2") == .double(-150))
    #expect(try parse("0.1") == .double(0.1))
    #expect(try parse("0.000") == .double(0))
  }

  @Test func readsEveryShortDecimalAsTheDoubleItsTextNames() throws {
    // Decimals of up to 15 digits take a shorter way than other numbers: the value must be the
    // one the standard library reads from the text, bit for bit, sign of zero included.
    var generator = SplitMix(seed: 24)
    var literals = ["-0.0", "0.000000000000001", "99999999999999.9", "9999999999999.99", "-0.5"]
    for _ in 0..<20_000 {
      let fractionDigits = Int(generator.next() % 15) + 1
      let integerDigits = Int(generator.next() % UInt64(16 - fractionDigits))
      var integerLimit: UInt64 = 1
      for _ in 0..<integerDigits { integerLimit *= 10 }
      var fraction = ""
      for _ in 0..<fractionDigits { fraction += String(generator.next() % 10) }
      let sign = generator.next() % 2 == 0 ? "" : "-"
      literals.append("\(sign)\(generator.next() % integerLimit).\(fraction)")
    }
    for literal in literals {
      guard case .double(let value) = try parse(literal) else {
        Issue.record("\(literal) did not read as a double")
        continue
      }
      #expect(value.bitPattern == Double(literal)!.bitPattern, "\(literal)")
    }
  }

  @Test func acceptsNestingUpToTheLimit() throws {
    let depth = JSONParser.maximumDepth
    let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    var expected = JSON.array([])
    for _ in 1..<depth { expected = .array([expected]) }
    #expect(try parse(arrays) == expected)

    let objects =
      String(repeating: #"{"a":"#, count: depth - 1) + "{}"
      + String(repeating: "}", count: depth - 1)
    #expect(throws: Never.self) { try JSONParser.parse(objects) }
  }

  @Test func parsesBytesStringsAndBuffersAlike() throws {
    let text = #"{"x":[1,2.5,"é",null]}"#
    let fromString = try JSONParser.parse(text)
    let fromBytes = try JSONParser.parse(Array(text.utf8))
    let fromBuffer = try Array(text.utf8).withUnsafeBytes { try JSONParser.parse($0) }
    #expect(fromString == fromBytes)
    #expect(fromString == fromBuffer)
  }

  @Test func parsesScalarsAtTheTopLevel() throws {
    #expect(try parse(" 7 ") == 7)
    #expect(try parse("\"top\"") == "top")
  }
}

/// A small seeded generator, so that the same literals are tried on every run.
private struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
