/// A JSON value that keeps everything the text said: integers apart from fractions, and object
/// members in their original order (so decoding and re-encoding gives the same bytes).
public enum JSON: Hashable, Sendable {
  case null
  case bool(Bool)
  case int(Int)
  case double(Double)
  /// A number whose literal neither `Int` nor `Double` holds exactly (a 30-digit id, a decimal
  /// with more digits than a `Double` keeps), as it was written; it is written back verbatim.
  /// Only the parser makes these; it makes `.int` or `.double` whenever they hold the value.
  case number(String)
  case string(String)
  case array([JSON])
  case object(JSONObject)
}

/// The members of a JSON object, in order. Keys are unique: building one from pairs with a
/// repeated key keeps its first position and its last value (the parser refuses such text).
public struct JSONObject: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
  /// One `"key": value` pair.
  public struct Member: Hashable, Sendable {
    public var key: String
    public var value: JSON
    public init(key: String, value: JSON) {
      self.key = key
      self.value = value
    }
  }

  /// The members in order.
  public private(set) var members: [Member]

  public init() { members = [] }

  public init(_ pairs: [(String, JSON)]) {
    members = []
    members.reserveCapacity(pairs.count)
    for (key, value) in pairs { self[key] = value }
  }

  public init(dictionaryLiteral elements: (String, JSON)...) { self.init(elements) }

  /// Builds an object from members already known to have distinct keys (parser fast path).
  init(uniqueMembers: [Member]) { members = uniqueMembers }

  public var count: Int { members.count }
  public var isEmpty: Bool { members.isEmpty }
  public var keys: [String] { members.map(\.key) }

  /// The value for `key`, or nil when absent. Setting nil removes the member.
  public subscript(key: String) -> JSON? {
    get {
      // Comparing lengths first keeps most mismatches off the slower full string comparison.
      let length = key.utf8.count
      for member in members where member.key.utf8.count == length && member.key == key {
        return member.value
      }
      return nil
    }
    set {
      if let index = members.firstIndex(where: { $0.key == key }) {
        if let newValue { members[index].value = newValue } else { members.remove(at: index) }
      } else if let newValue {
        members.append(Member(key: key, value: newValue))
      }
    }
  }

  public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

  /// The same members sorted by key, recursively: the canonical form used for digests.
  public func sortedRecursively() -> JSONObject {
    JSONObject(
      uniqueMembers: members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        .map { Member(key: $0.key, value: $0.value.sortedRecursively()) })
  }
}

extension JSON {
  /// The string, when this is a string.
  public var string: String? { if case .string(let s) = self { s } else { nil } }
  /// The integer, when this is an integer (or a fraction with no fractional part).
  public var int: Int? {
    switch self {
    case .int(let i): i
    case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: Int(d)
    default: nil  // `.number` never fits an Int: the parser would have made it `.int`.
    }
  }
  /// The number as a Double, when this is a number.
  public var double: Double? {
    switch self {
    case .int(let i): Double(i)
    case .double(let d): d
    case .number(let text): Double(text)
    default: nil
    }
  }
  public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
  public var array: [JSON]? { if case .array(let a) = self { a } else { nil } }
  public var object: JSONObject? { if case .object(let o) = self { o } else { nil } }
  public var isNull: Bool { self == .null }

  /// The member `key` of an object; nil for other values or a missing key.
  public subscript(key: String) -> JSON? { object?[key] }

  /// A short name for the kind of value, for error messages.
  public var kindName: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .int, .double, .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  /// The value with every object's keys sorted, recursively.
  public func sortedRecursively() -> JSON {
    switch self {
    case .object(let o): .object(o.sortedRecursively())
    case .array(let a): .array(a.map { $0.sortedRecursively() })
    default: self
    }
  }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByBooleanLiteral,
  ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
  ExpressibleByNilLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .int(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(floatLiteral value: Double) { self = .double(value) }
  public init(arrayLiteral elements: JSON...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, JSON)...) {
    self = .object(JSONObject(elements))
  }
  public init(nilLiteral: ()) { self = .null }
}
