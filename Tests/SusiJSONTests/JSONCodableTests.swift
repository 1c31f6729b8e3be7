import Foundation
import SusiCrypto
import SusiJSON
import Testing

@Suite struct JSONCodableTests {
  private struct Holder: Codable, Equatable {
    var cell: JSON
    var cells: [JSON]
  }

  private func decode(_ text: String) throws -> JSON {
    try JSONDecoder().decode(JSON.self, from: Data(text.utf8))
  }

  @Test func decodesEveryKind() throws {
    #expect(try decode("null") == .null)
    #expect(try decode("true") == .bool(true))
    #expect(try decode("false") == .bool(false))
    #expect(try decode("42") == .int(42))
    #expect(try decode("-7") == .int(-7))
    #expect(try decode("2.5") == .double(2.5))
    #expect(try decode(#""text""#) == .string("text"))
    #expect(try decode(#"[1,"a",null]"#) == [1, "a", nil])
  }

  @Test func keepsBooleansApartFromNumbers() throws {
    #expect(try decode("1") == .int(1))
    #expect(try decode("0") == .int(0))
    #expect(try decode("[true,1]") == [true, 1])
  }

  @Test func decodesObjectsWithKeysSorted() throws {
    let value = try decode(#"{"b":1,"a":{"d":[],"c":2}}"#)
    #expect(value.object?.keys == ["a", "b"])
    #expect(value["a"]?.object?.keys == ["c", "d"])
  }

  @Test func encodesToTheSameJSON() throws {
    let value: JSON = ["a": [1, 2.5, "x", true, nil], "b": ["c": [:]]]
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = try encoder.encode(value)
    #expect(try JSONParser.parse(Array(data)) == value)
  }

  @Test func travelsInsideCodableTypes() throws {
    let holder = Holder(cell: ["x": [1, "y"]], cells: [nil, 3, "z", 0.25])
    let data = try JSONEncoder().encode(holder)
    #expect(try JSONDecoder().decode(Holder.self, from: data) == holder)
  }

  @Test func generatedValuesSurviveEncodingAndDecoding() throws {
    var generator = SeededRandom(seed: 2024)
    for i in 0..<100 {
      let value = RandomJSON.value(depth: 3, using: &generator).withoutAmbiguousNumbers
      let data = try JSONEncoder().encode(value)
      let decoded = try JSONDecoder().decode(JSON.self, from: data)
      #expect(decoded == value.sortedRecursively(), "case \(i): \(value.compactText)")
    }
  }
}

extension JSON {
  /// The value with fractions that Foundation may read back as integers (whole numbers) made
  /// clearly fractional, so the comparison tests the bridge rather than number formatting.
  fileprivate var withoutAmbiguousNumbers: JSON {
    switch self {
    case .double(let d) where d.rounded() == d || !d.isFinite || abs(d) < 1e-300 || abs(d) > 1e300:
      .double(0.5)
    case .array(let a): .array(a.map(\.withoutAmbiguousNumbers))
    case .object(let o): .object(JSONObject(o.map { ($0.key, $0.value.withoutAmbiguousNumbers) }))
    default: self
    }
  }
}
