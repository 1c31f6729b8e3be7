import SusiJSON
import Testing

@Suite struct JSONObjectTests {
  @Test func setsReadsAndRemovesMembers() {
    var object = JSONObject()
    object["b"] = 1
    object["a"] = "x"
    #expect(object.keys == ["b", "a"])
    #expect(object["a"] == "x")
    #expect(object["missing"] == nil)
    object["b"] = 2
    #expect(object.keys == ["b", "a"])
    #expect(object["b"] == 2)
    object["b"] = nil
    #expect(object.keys == ["a"])
    #expect(object.count == 1)
    object["a"] = nil
    #expect(object.isEmpty)
  }

  @Test func settingNullKeepsTheMember() {
    var object: JSONObject = ["a": 1]
    object["a"] = .null
    #expect(object.keys == ["a"])
    #expect(object["a"] == .null)
  }

  @Test func repeatedKeysInPairsKeepFirstPositionAndLastValue() {
    let object = JSONObject([("a", 1), ("b", 2), ("a", 3)])
    #expect(object.keys == ["a", "b"])
    #expect(object["a"] == 3)
    let literal: JSONObject = ["x": 1, "y": 2, "x": 9]
    #expect(literal.keys == ["x", "y"])
    #expect(literal["x"] == 9)
  }

  @Test func iteratesMembersInOrder() {
    let object: JSONObject = ["z": 1, "y": 2, "x": 3]
    #expect(object.map(\.key) == ["z", "y", "x"])
    #expect(object.map(\.value) == [1, 2, 3])
  }

  @Test func equalityDependsOnMemberOrder() {
    let ab: JSONObject = ["a": 1, "b": 2]
    let ba: JSONObject = ["b": 2, "a": 1]
    #expect(ab != ba)
    #expect(ab.sortedRecursively() == ba.sortedRecursively())
  }

  @Test func sortsKeysByUTF8BytesRecursively() {
    let value: JSON = ["é": 1, "b": ["z": 1, "a": [["y": 1, "x": 2]]], "B": 2, "a": 3]
    let sorted = value.sortedRecursively()
    #expect(sorted.object?.keys == ["B", "a", "b", "é"])
    #expect(sorted["b"]?.object?.keys == ["a", "z"])
    #expect(sorted["b"]?["a"]?.array?.first?.object?.keys == ["x", "y"])
  }

  @Test func readsTypedValues() {
    #expect(JSON.string("s").string == "s")
    #expect(JSON.int(3).string == nil)
    #expect(JSON.int(3).int == 3)
    #expect(JSON.double(2.0).int == 2)
    #expect(JSON.double(2.5).int == nil)
    #expect(JSON.double(1e16).int == nil)
    #expect(JSON.string("3").int == nil)
    #expect(JSON.int(3).double == 3.0)
    #expect(JSON.double(2.5).double == 2.5)
    #expect(JSON.bool(true).bool == true)
    #expect(JSON.int(1).bool == nil)
    #expect(JSON.array([1]).array == [1])
    #expect(JSON.object(["a": 1]).object?["a"] == 1)
    #expect(JSON.null.isNull)
    #expect(!JSON.bool(false).isNull)
    #expect(JSON.int(1)["a"] == nil)
  }

  @Test func namesKindsForMessages() {
    #expect(JSON.null.kindName == "null")
    #expect(JSON.bool(true).kindName == "a boolean")
    #expect(JSON.int(1).kindName == "a number")
    #expect(JSON.double(1.5).kindName == "a number")
    #expect(JSON.string("").kindName == "a string")
    #expect(JSON.array([]).kindName == "an array")
    #expect(JSON.object([:]).kindName == "an object")
  }

  @Test func buildsValuesFromLiterals() {
    let value: JSON = ["s": "x", "i": 1, "d": 1.5, "b": true, "n": nil, "a": [1, "2"]]
    #expect(
      value
        == .object(
          JSONObject([
            ("s", .string("x")), ("i", .int(1)), ("d", .double(1.5)), ("b", .bool(true)),
            ("n", .null), ("a", .array([.int(1), .string("2")])),
          ])))
  }

  @Test func objectBuilderSkipsNilOptionals() {
    var builder = ObjectBuilder()
    builder.set("s", "x")
    builder.set("i", 1)
    builder.set("d", 1.5)
    builder.set("b", false)
    builder.set("l", ["p", "q"])
    builder.set("j", JSON.null)
    builder.set("none", nil as String?)
    builder.set("noInt", nil as Int?)
    builder.set("someInt", 7 as Int?)
    #expect(
      builder.json == [
        "s": "x", "i": 1, "d": 1.5, "b": false, "l": ["p", "q"], "j": nil, "someInt": 7,
      ])
  }
}
