import SusiCore
import SusiHTTPTypes
import SusiJSON

// Servers send numbers as strings and strings as numbers; these readers accept both, and
// answer nil (never crash) for anything else.

extension JSON {
  /// An integer from a number or a numeric string (`3`, `"3"`, `3.0`, `"3.0"`).
  var lenientInt: Int? {
    switch self {
    case .int(let i): return i
    case .double: return int
    case .string(let s):
      let text = s.trimmingSpaces()
      if let i = Int(text) { return i }
      if let d = Double(text), d.isFinite, d.rounded() == d, abs(d) < 9.0e15 { return Int(d) }
      return nil
    default: return nil
    }
  }

  /// A finite number from a number or a numeric string.
  var lenientDouble: Double? {
    switch self {
    case .int(let i): return Double(i)
    case .double(let d): return d.isFinite ? d : nil
    case .number: return double
    case .string(let s):
      guard let d = Double(s.trimmingSpaces()), d.isFinite else { return nil }
      return d
    default: return nil
    }
  }

  /// Text from a string, a number or a boolean; arrays and objects as compact JSON; nil for null.
  var lenientText: String? {
    switch self {
    case .null: return nil
    case .string(let s): return s
    case .int(let i): return String(i)
    case .double(let d): return d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    case .number(let text): return text
    case .bool(let b): return b ? "true" : "false"
    case .array, .object:
      var writer = JSONWriter()
      writer.value(self)
      return String(decoding: writer.bytes, as: UTF8.self)
    }
  }

  /// A boolean from `true`/`false`, `"true"`/`"yes"`/`"1"` and their opposites, or 0/1.
  var lenientBool: Bool? {
    switch self {
    case .bool(let b): return b
    case .int(0): return false
    case .int(1): return true
    case .string(let s):
      switch s.trimmingSpaces().lowercased() {
      case "true", "yes", "1", "on": return true
      case "false", "no", "0", "off": return false
      default: return nil
      }
    default: return nil
    }
  }
}

extension JSONObject {
  /// The member `key` as text (numbers and booleans too); nil when absent or null.
  func text(_ key: String) -> String? { self[key]?.lenientText }

  /// The member `key` as a non-empty string, else nil.
  func nonEmptyText(_ key: String) -> String? {
    guard let text = text(key), !text.trimmingSpaces().isEmpty else { return nil }
    return text
  }

  func int(_ key: String) -> Int? { self[key]?.lenientInt }
  func double(_ key: String) -> Double? { self[key]?.lenientDouble }
  func bool(_ key: String) -> Bool? { self[key]?.lenientBool }
  func object(_ key: String) -> JSONObject? { self[key]?.object }
  func array(_ key: String) -> [JSON]? { self[key]?.array }

  /// The strings of the array `key`, skipping members that are not text.
  func strings(_ key: String) -> [String] {
    (self[key]?.array ?? []).compactMap { $0.string }
  }
}

/// A reply's fields, read from its bytes (`BytesFieldReader`) or from its tree (`FieldReader`):
/// a decoder written once against this reads a reply either way (`ReplyReader.read`).
protocol ReplyFields: FieldReading {
  /// The object itself as a tree, for what is kept as it came (an action this client does not
  /// know). A reader of bytes gives up instead, and the reply is read as a tree.
  func tree() throws -> JSON
}

extension FieldReader: ReplyFields {
  func tree() -> JSON { .object(object) }
}

extension BytesFieldReader: ReplyFields {
  func tree() throws -> JSON { throw JSONReader.UnusualObject() }
}

/// What takes the objects of an array in a reply one by one, each in the reader it comes in.
protocol ReplyObjectCollector {
  mutating func add(_ object: some ReplyFields) throws
}

extension ReplyFields {
  /// Adds each object of the array `key` to `collector`, in order, skipping elements that are
  /// not objects; nothing when the member is absent or null. A member that is no array fails,
  /// saying that `reply` (`the chat reply`) from `place` has its kind for `key`.
  func addObjects(
    _ key: String, to collector: inout some ReplyObjectCollector, reply: String, place: String
  ) throws {
    guard has(key) else { return }
    // Read as this reader reads objects; as trees when some element is not an object.
    if let objects = try? objects(key) {
      for object in objects { try collector.add(object) }
      return
    }
    let value = try value(key)
    guard case .array(let elements) = value else {
      throw RunnerFailure(.badResponse, "\(reply) from \(place) has \(value.kindName) for \(key)")
    }
    for case .object(let object) in elements { try collector.add(FieldReader(object)) }
  }
}

/// The lenient readers above over either reader: each reads the member as a value and reads
/// that as the `JSON` readers do, so both ways give the same answer.
extension FieldReading {
  func lenientText(_ key: String) throws -> String? { try optionalValue(key)?.lenientText }

  func nonEmptyText(_ key: String) throws -> String? {
    guard let text = try lenientText(key), !text.trimmingSpaces().isEmpty else { return nil }
    return text
  }

  func lenientInt(_ key: String) throws -> Int? { try optionalValue(key)?.lenientInt }
  func lenientDouble(_ key: String) throws -> Double? { try optionalValue(key)?.lenientDouble }
  func lenientBool(_ key: String) throws -> Bool? { try optionalValue(key)?.lenientBool }

  /// The object member `key`, or nil when it is absent, null or not an object.
  func lenientObject(_ key: String) -> Self? { try? optionalObject(key) }
}
