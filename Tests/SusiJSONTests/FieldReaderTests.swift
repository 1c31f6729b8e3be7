import SusiJSON
import Testing

@Suite struct FieldReaderTests {
  static let sample: JSON = [
    "s": "text", "i": 4, "whole": 4.0, "d": 2.5, "b": true, "n": nil, "a": [1, "x"],
    "names": ["p", "q"], "o": ["inner": ["deep": 1]], "list": [["k": "v"], ["k": 5]],
  ]

  private func reader(path: String = "payload") throws -> FieldReader {
    try FieldReader(Self.sample, path: path)
  }

  /// The error `body` throws, or nil.
  private func error(_ body: () throws -> Void) -> JSONShapeError? {
    do {
      try body()
      return nil
    } catch let error as JSONShapeError {
      return error
    } catch {
      Issue.record("unexpected error \(error)")
      return nil
    }
  }

  @Test func readsEachTypeOfField() throws {
    let r = try reader()
    #expect(try r.string("s") == "text")
    #expect(try r.int("i") == 4)
    #expect(try r.int("whole") == 4)
    #expect(try r.double("d") == 2.5)
    #expect(try r.double("i") == 4.0)
    #expect(try r.bool("b") == true)
    #expect(try r.array("a") == [1, "x"])
    #expect(try r.strings("names") == ["p", "q"])
    #expect(try r.object("o").object["inner"] == ["deep": 1])
    #expect(try r.value("n") == .null)
    #expect(r.optionalValue("n") == nil)
    #expect(r.optionalValue("s") == "text")
  }

  @Test func optionalReadsTreatMissingAndNullAlike() throws {
    let r = try reader()
    #expect(try r.optionalString("missing") == nil)
    #expect(try r.optionalString("n") == nil)
    #expect(try r.optionalInt("n") == nil)
    #expect(try r.optionalDouble("n") == nil)
    #expect(try r.optionalBool("n") == nil)
    #expect(try r.optionalArray("n") == nil)
    #expect(try r.optionalObject("n") == nil)
    #expect(try r.optionalString("s") == "text")
    #expect(try r.optionalInt("i") == 4)
    #expect(try r.optionalDouble("d") == 2.5)
    #expect(try r.optionalBool("b") == true)
    #expect(try r.optionalArray("a")?.count == 2)
    #expect(try r.optionalObject("o")?.path == "payload.o")
    #expect(r.has("s"))
    #expect(!r.has("n"))
    #expect(!r.has("missing"))
  }

  @Test func requiredReadsCallNullMissing() throws {
    let r = try reader()
    #expect(error { _ = try r.string("n") } == JSONShapeError(path: "payload.n", reason: "missing"))
    #expect(
      error { _ = try r.int("missing") }
        == JSONShapeError(path: "payload.missing", reason: "missing"))
    #expect(error { _ = try r.value("missing") }?.description == "payload.missing: missing")
  }

  @Test func wrongTypesNameTheFieldAndWhatWasFound() throws {
    let r = try reader()
    let cases: [(JSONShapeError?, String)] = [
      (error { _ = try r.string("i") }, "payload.i: expected a string, found a number"),
      (error { _ = try r.int("s") }, "payload.s: expected an integer, found a string"),
      (error { _ = try r.int("d") }, "payload.d: expected an integer, found a number"),
      (error { _ = try r.double("b") }, "payload.b: expected a number, found a boolean"),
      (error { _ = try r.bool("i") }, "payload.i: expected a boolean, found a number"),
      (error { _ = try r.array("o") }, "payload.o: expected an array, found an object"),
      (error { _ = try r.object("a") }, "payload.a: expected an object, found an array"),
      (error { _ = try r.optionalString("b") }, "payload.b: expected a string, found a boolean"),
      (error { _ = try r.optionalInt("d") }, "payload.d: expected an integer, found a number"),
      (error { _ = try r.optionalDouble("s") }, "payload.s: expected a number, found a string"),
      (error { _ = try r.optionalBool("s") }, "payload.s: expected a boolean, found a string"),
      (error { _ = try r.optionalArray("s") }, "payload.s: expected an array, found a string"),
      (error { _ = try r.optionalObject("s") }, "payload.s: expected an object, found a string"),
      (error { _ = try r.strings("a") }, "payload.a[0]: expected a string, found a number"),
      (error { _ = try r.objects("a") }, "payload.a[0]: expected an object, found a number"),
    ]
    for (found, expected) in cases { #expect(found?.description == expected) }
  }

  @Test func nestedReadersExtendThePath() throws {
    let r = try reader()
    let deep = try r.object("o").object("inner")
    #expect(deep.path == "payload.o.inner")
    #expect(
      error { _ = try deep.string("deep") }?.description
        == "payload.o.inner.deep: expected a string, found a number")
    let list = try r.objects("list")
    #expect(list.map(\.path) == ["payload.list[0]", "payload.list[1]"])
    #expect(
      error { _ = try list[1].string("k") }?.description
        == "payload.list[1].k: expected a string, found a number")
  }

  @Test func aReaderWithoutAPathNamesBareFields() throws {
    let r = try FieldReader(Self.sample)
    #expect(r.fieldPath("s") == "s")
    #expect(error { _ = try r.int("s") }?.description == "s: expected an integer, found a string")
  }

  @Test func refusesToReadANonObject() {
    #expect(
      error { _ = try FieldReader(JSON.array([]), path: "payload") }
        == JSONShapeError(path: "payload", reason: "expected an object, found an array"))
    #expect(
      error { _ = try FieldReader(JSON.int(1)) }?.description
        == "expected an object, found a number")
  }

  @Test func integersMustBeWholeAndWithinExactRange() throws {
    let r = try FieldReader(["big": 1e16, "ok": 9e14, "neg": -3.0] as JSON)
    #expect(
      error { _ = try r.int("big") }?.description == "big: expected an integer, found a number")
    #expect(try r.int("ok") == 900_000_000_000_000)
    #expect(try r.int("neg") == -3)
  }

  @Test func rejectsUnknownKeysByName() throws {
    let r = try FieldReader(["url": "x", "urll": "y"] as JSON, path: "payload")
    #expect(throws: Never.self) { try FieldReader(["url": "x"] as JSON).rejectUnknownKeys(["url"]) }
    #expect(
      error { try r.rejectUnknownKeys(["url"]) }
        == JSONShapeError(path: "payload.urll", reason: "unknown field"))
  }
}
