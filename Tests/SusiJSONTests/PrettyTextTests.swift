import SusiJSON
import Testing

@Suite struct PrettyTextTests {
  @Test func indentsOneMemberOrElementPerLine() {
    let value: JSON = ["name": "SUSI", "list": [1, ["x": nil]], "empty": [:], "none": []]
    let expected = """
      {
        "name": "SUSI",
        "list": [
          1,
          {
            "x": null
          }
        ],
        "empty": {},
        "none": []
      }
      """
    #expect(value.prettyText() == expected)
  }

  @Test func usesTheGivenIndent() {
    let value: JSON = ["a": [true]]
    #expect(value.prettyText(indent: 4) == "{\n    \"a\": [\n        true\n    ]\n}")
    #expect(value.prettyText(indent: 0) == "{\n\"a\": [\ntrue\n]\n}")
  }

  @Test func writesScalarsAndEmptyContainersOnOneLine() {
    #expect(JSON.int(3).prettyText() == "3")
    #expect(JSON.string("a\nb").prettyText() == #""a\nb""#)
    #expect(JSON.object([:]).prettyText() == "{}")
    #expect(JSON.array([]).prettyText() == "[]")
    #expect(JSON.null.prettyText() == "null")
  }

  @Test func escapesKeysAndStrings() {
    let value: JSON = ["q\"": "t\tab"]
    #expect(value.prettyText() == "{\n  \"q\\\"\": \"t\\tab\"\n}")
  }

  @Test func prettyTextParsesBackToTheSameValue() throws {
    let value: JSON = ["a": [1, 2.5, ["b": [[], [:], "é"]]], "c": nil, "d": -7]
    #expect(try JSONParser.parse(value.prettyText()) == value)
    #expect(try JSONParser.parse(value.prettyText(indent: 3)) == value)
  }
}
