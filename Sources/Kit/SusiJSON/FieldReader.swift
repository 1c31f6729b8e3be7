/// Why a JSON value does not have the shape a reader expected, naming the field.
public struct JSONShapeError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Dotted path of the offending field, e.g. `payload.stars`.
  public var path: String
  public var reason: String
  public init(path: String, reason: String) {
    self.path = path
    self.reason = reason
  }
  public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}

/// Reads typed fields out of a JSON object: what a codec reads through, so that one set of
/// field rules reads a tree (`FieldReader`) and an object's bytes (`BytesFieldReader`) alike.
///
/// `x(key)` requires the field; `optionalX(key)` accepts a missing field or `null`; a present
/// field of the wrong type is always an error.
public protocol FieldReading {
  /// The path of the member `key`, for error messages.
  func fieldPath(_ key: String) -> String
  /// Whether the member `key` is present and not `null`.
  func has(_ key: String) -> Bool
  /// Whether the member `key` is present, even as `null`.
  func contains(_ key: String) -> Bool
  func value(_ key: String) throws(JSONShapeError) -> JSON
  func optionalValue(_ key: String) throws(JSONShapeError) -> JSON?
  func string(_ key: String) throws(JSONShapeError) -> String
  func optionalString(_ key: String) throws(JSONShapeError) -> String?
  func int(_ key: String) throws(JSONShapeError) -> Int
  func optionalInt(_ key: String) throws(JSONShapeError) -> Int?
  func double(_ key: String) throws(JSONShapeError) -> Double
  func optionalDouble(_ key: String) throws(JSONShapeError) -> Double?
  func bool(_ key: String) throws(JSONShapeError) -> Bool
  func optionalBool(_ key: String) throws(JSONShapeError) -> Bool?
  func array(_ key: String) throws(JSONShapeError) -> [JSON]
  func optionalArray(_ key: String) throws(JSONShapeError) -> [JSON]?
  /// The array `key`, whose elements must all be strings.
  func strings(_ key: String) throws(JSONShapeError) -> [String]
  func object(_ key: String) throws(JSONShapeError) -> Self
  func optionalObject(_ key: String) throws(JSONShapeError) -> Self?
  /// Each element of the array `key`, read as an object.
  func objects(_ key: String) throws(JSONShapeError) -> [Self]
  /// How many members the object has (to make room for them at once).
  var memberCount: Int { get }
  /// Calls `body` with each member's key and value, in order.
  func forEachMember(_ body: (String, JSON) throws(JSONShapeError) -> Void) throws(JSONShapeError)
  /// Fails when the object has a member not in `allowed` (for strict input from other programs).
  func rejectUnknownKeys(_ allowed: Set<String>) throws(JSONShapeError)
}

extension FieldReading {
  /// Each element of the array `key`, an object, read by `read`.
  @inlinable
  public func objects<T>(_ key: String, _ read: (Self) throws(JSONShapeError) -> T)
    throws(JSONShapeError) -> [T]
  {
    let objects = try objects(key)
    var out: [T] = []
    out.reserveCapacity(objects.count)
    for object in objects { out.append(try read(object)) }
    return out
  }
}

/// Reads typed fields out of a JSON object (a tree), with errors that name the field.
public struct FieldReader: FieldReading, Sendable {
  public let object: JSONObject
  /// Path of this object, used as the prefix in error messages.
  public let path: String

  public init(_ object: JSONObject, path: String = "") {
    self.object = object
    self.path = path
  }

  /// A reader for `value`, which must be an object.
  public init(_ value: JSON, path: String = "") throws(JSONShapeError) {
    guard case .object(let object) = value else {
      throw JSONShapeError(path: path, reason: "expected an object, found \(value.kindName)")
    }
    self.init(object, path: path)
  }

  public func fieldPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

  private func mismatch(_ key: String, _ expected: String, _ found: JSON) -> JSONShapeError {
    JSONShapeError(path: fieldPath(key), reason: "expected \(expected), found \(found.kindName)")
  }

  private func missing(_ key: String) -> JSONShapeError {
    JSONShapeError(path: fieldPath(key), reason: "missing")
  }

  public func has(_ key: String) -> Bool { object[key].map { !$0.isNull } ?? false }

  public func contains(_ key: String) -> Bool { object[key] != nil }

  public func value(_ key: String) throws(JSONShapeError) -> JSON {
    guard let value = object[key] else { throw missing(key) }
    return value
  }

  public func optionalValue(_ key: String) -> JSON? {
    guard let value = object[key], !value.isNull else { return nil }
    return value
  }

  public func string(_ key: String) throws(JSONShapeError) -> String {
    guard let value = object[key], !value.isNull else { throw missing(key) }
    guard case .string(let s) = value else { throw mismatch(key, "a string", value) }
    return s
  }

  public func optionalString(_ key: String) throws(JSONShapeError) -> String? {
    guard let value = object[key], !value.isNull else { return nil }
    guard case .string(let s) = value else { throw mismatch(key, "a string", value) }
    return s
  }

  public func int(_ key: String) throws(JSONShapeError) -> Int {
    guard let value = object[key], !value.isNull else { throw missing(key) }
    guard let i = value.int else { throw mismatch(key, "an integer", value) }
    return i
  }

  public func optionalInt(_ key: String) throws(JSONShapeError) -> Int? {
    guard let value = object[key], !value.isNull else { return nil }
    guard let i = value.int else { throw mismatch(key, "an integer", value) }
    return i
  }

  public func double(_ key: String) throws(JSONShapeError) -> Double {
    guard let value = object[key], !value.isNull else { throw missing(key) }
    guard let d = value.double else { throw mismatch(key, "a number", value) }
    return d
  }

  public func optionalDouble(_ key: String) throws(JSONShapeError) -> Double? {
    guard let value = object[key], !value.isNull else { return nil }
    guard let d = value.double else { throw mismatch(key, "a number", value) }
    return d
  }

  public func bool(_ key: String) throws(JSONShapeError) -> Bool {
    guard let value = object[key], !value.isNull else { throw missing(key) }
    guard case .bool(let b) = value else { throw mismatch(key, "a boolean", value) }
    return b
  }

  public func optionalBool(_ key: String) throws(JSONShapeError) -> Bool? {
    guard let value = object[key], !value.isNull else { return nil }
    guard case .bool(let b) = value else { throw mismatch(key, "a boolean", value) }
    return b
  }

  public func array(_ key: String) throws(JSONShapeError) -> [JSON] {
    guard let value = object[key], !value.isNull else { throw missing(key) }
    guard case .array(let a) = value else { throw mismatch(key, "an array", value) }
    return a
  }

  public func optionalArray(_ key: String) throws(JSONShapeError) -> [JSON]? {
    guard let value = object[key], !value.isNull else { return nil }
    guard case .array(let a) = value else { throw mismatch(key, "an array", value) }
    return a
  }

  public func strings(_ key: String) throws(JSONShapeError) -> [String] {
    let elements = try array(key)
    var out: [String] = []
    out.reserveCapacity(elements.count)
    for (i, element) in elements.enumerated() {
      guard case .string(let s) = element else {
        throw JSONShapeError(
          path: "\(fieldPath(key))[\(i)]", reason: "expected a string, found \(element.kindName)")
      }
      out.append(s)
    }
    return out
  }

  public func object(_ key: String) throws(JSONShapeError) -> FieldReader {
    guard let value = object[key], !value.isNull else { throw missing(key) }
    guard case .object(let o) = value else { throw mismatch(key, "an object", value) }
    return FieldReader(o, path: fieldPath(key))
  }

  public func optionalObject(_ key: String) throws(JSONShapeError) -> FieldReader? {
    guard let value = object[key], !value.isNull else { return nil }
    guard case .object(let o) = value else { throw mismatch(key, "an object", value) }
    return FieldReader(o, path: fieldPath(key))
  }

  /// Each element of the array `key`, read as an object.
  public func objects(_ key: String) throws(JSONShapeError) -> [FieldReader] {
    let elements = try array(key)
    var out: [FieldReader] = []
    out.reserveCapacity(elements.count)
    for (i, element) in elements.enumerated() {
      guard case .object(let o) = element else {
        throw JSONShapeError(
          path: "\(fieldPath(key))[\(i)]", reason: "expected an object, found \(element.kindName)")
      }
      out.append(FieldReader(o, path: "\(fieldPath(key))[\(i)]"))
    }
    return out
  }

  public var memberCount: Int { object.count }

  public func forEachMember(_ body: (String, JSON) throws(JSONShapeError) -> Void)
    throws(JSONShapeError)
  {
    for member in object.members { try body(member.key, member.value) }
  }

  /// Fails when the object has a member not in `allowed` (for strict input from other programs).
  public func rejectUnknownKeys(_ allowed: Set<String>) throws(JSONShapeError) {
    for member in object.members where !allowed.contains(member.key) {
      throw JSONShapeError(path: fieldPath(member.key), reason: "unknown field")
    }
  }
}

/// Builds a JSON object member by member, skipping nil optionals.
public struct ObjectBuilder: Sendable {
  public private(set) var object = JSONObject()
  public init() {}
  public mutating func set(_ key: String, _ value: JSON) { object[key] = value }
  public mutating func set(_ key: String, _ value: String) { object[key] = .string(value) }
  public mutating func set(_ key: String, _ value: Int) { object[key] = .int(value) }
  public mutating func set(_ key: String, _ value: Double) { object[key] = .double(value) }
  public mutating func set(_ key: String, _ value: Bool) { object[key] = .bool(value) }
  public mutating func set(_ key: String, _ value: [String]) {
    object[key] = .array(value.map(JSON.string))
  }
  public mutating func set(_ key: String, _ value: String?) { if let value { set(key, value) } }
  public mutating func set(_ key: String, _ value: Int?) { if let value { set(key, value) } }
  public mutating func set(_ key: String, _ value: Double?) { if let value { set(key, value) } }
  public mutating func set(_ key: String, _ value: Bool?) { if let value { set(key, value) } }
  public mutating func set(_ key: String, _ value: JSON?) { if let value { set(key, value) } }
  public var json: JSON { .object(object) }
}
