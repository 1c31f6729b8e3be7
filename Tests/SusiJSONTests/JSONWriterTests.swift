import SusiJSON
import Testing

@Suite struct JSONWriterTests {
  @Test func writesCompactJSONInMemberOrder() {
    let value: JSON = ["b": [1, 2.5, "x", true, false, nil], "a": [:], "c": []]
    #expect(value.compactText == #"{"b":[1,2.5,"x",true,false,null],"a":{},"c":[]}"#)
    #expect(value.compactBytes == Array(value.compactText.utf8))
    #expect(value.description == value.compactText)
  }

  @Test(arguments: [
    ("\"", #""\"""#), ("\\", #""\\""#), ("\n", #""\n""#), ("\r", #""\r""#), ("\t", #""\t""#),
    ("\u{08}", #""\b""#), ("\u{0C}", #""\f""#), ("\u{0}", #""\u0000""#), ("\u{01}", #""\u0001""#),
    ("\u{1B}", #""\u001b""#), ("\u{1F}", #""\u001f""#), ("\u{7F}", "\"\u{7F}\""), ("/", #""/""#),
    ("é€😀", "\"é€😀\""), ("a\"b\\c\nd", #""a\"b\\c\nd""#), ("", #""""#),
  ])
  func escapesOnlyWhatJSONRequires(text: String, expected: String) {
    #expect(JSON.string(text).compactText == expected)
  }

  @Test(arguments: [
    (0, "0"), (9, "9"), (10, "10"), (-1, "-1"), (-10, "-10"), (1_234_567_890, "1234567890"),
    (Int.max, "9223372036854775807"), (Int.min, "-9223372036854775808"),
  ])
  func writesIntegers(value: Int, expected: String) {
    #expect(JSON.int(value).compactText == expected)
  }

  @Test(arguments: [
    (1.5, "1.5"), (1.0, "1.0"), (-0.0, "-0.0"), (0.1, "0.1"), (1e20, "1e+20"), (1e-7, "1e-07"),
    (Double.leastNonzeroMagnitude, "5e-324"),
    (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
  ])
  func writesFractionsThatReadBackExactly(value: Double, expected: String) throws {
    #expect(JSON.double(value).compactText == expected)
    #expect(try JSONParser.parse(expected) == .double(value))
  }

  @Test func writesNonFiniteNumbersAsNull() {
    #expect(JSON.double(.nan).compactText == "null")
    #expect(JSON.double(.infinity).compactText == "null")
    #expect(JSON.double(-.infinity).compactText == "null")
  }

  @Test func escapesKeysLikeStrings() {
    let value: JSON = ["a\"b": 1, "line\n": 2]
    #expect(value.compactText == #"{"a\"b":1,"line\n":2}"#)
  }

  @Test func objectFieldsPlaceCommasAndSkipNilOptionals() {
    var w = JSONWriter()
    w.object { o in
      o.field("s", "x")
      o.field("none", nil as String?)
      o.field("i", 1)
      o.field("noInt", nil as Int?)
      o.field("d", 2.5)
      o.field("b", true)
      o.field("j", JSON.null)
      o.field("noJSON", nil as JSON?)
      o.field("list", ["p", "q"])
      o.fieldOrNull("nullInt", nil)
      o.fieldOrNull("someInt", 3)
      o.field("nested") { $0.object { $0.field("k", "v") } }
      o.field(dynamic: "dyn\"amic") { $0.int(5) }
    }
    #expect(
      String(decoding: w.bytes, as: UTF8.self)
        == #"{"s":"x","i":1,"d":2.5,"b":true,"j":null,"list":["p","q"],"nullInt":null,"someInt":3,"nested":{"k":"v"},"dyn\"amic":5}"#
    )
  }

  @Test func writesEmptyObjectsAndArrays() {
    var w = JSONWriter()
    w.array([Int]()) { $0.int($1) }
    w.byte(UInt8(ascii: " "))
    w.object { _ in }
    w.byte(UInt8(ascii: " "))
    w.array([1, 2, 3]) { $0.int($1) }
    #expect(String(decoding: w.bytes, as: UTF8.self) == "[] {} [1,2,3]")
  }

  @Test func nestedObjectWritersShareTheBuffer() {
    var w = JSONWriter()
    w.raw("prefix:")
    w.object { o in
      o.field("a") { w in w.object { $0.field("b") { $0.array(["x"]) { $0.string($1) } } } }
    }
    #expect(String(decoding: w.bytes, as: UTF8.self) == #"prefix:{"a":{"b":["x"]}}"#)
  }
}
