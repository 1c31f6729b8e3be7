/// Header fields in the order they arrived; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
  public struct Field: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  public private(set) var fields: [Field] = []

  public init() {}
  public init(_ pairs: [(String, String)]) { fields = pairs.map { Field(name: $0.0, value: $0.1) } }
  public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

  /// The first value of `name`, or nil.
  public subscript(name: String) -> String? {
    fields.first { Self.namesMatch($0.name, name) }?.value
  }

  /// Every value of `name`, in order.
  public func values(_ name: String) -> [String] {
    fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
  }

  /// Makes room for `count` fields in all, so adding them allocates once.
  public mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

  public mutating func add(_ name: String, _ value: String) {
    fields.append(Field(name: name, value: value))
  }

  /// Replaces every field called `name` with one field.
  public mutating func set(_ name: String, _ value: String) {
    // Removing touches the fields only when there is something to remove: on fields shared
    // with another copy, that would copy them once more before the append does.
    if contains(name) { fields.removeAll { Self.namesMatch($0.name, name) } }
    fields.append(Field(name: name, value: value))
  }

  public mutating func remove(_ name: String) {
    fields.removeAll { Self.namesMatch($0.name, name) }
  }

  /// Whether `name` is present.
  public func contains(_ name: String) -> Bool {
    fields.contains { Self.namesMatch($0.name, name) }
  }

  /// Field names are ASCII tokens, so ASCII case folding is enough and needs no allocation.
  public static func namesMatch(_ a: String, _ b: String) -> Bool {
    // Names of different lengths never match: most fields are told apart here.
    guard a.utf8.count == b.utf8.count else { return false }
    // Compared over contiguous bytes (a name is a small string, copied to the stack for this):
    // the view's iterators decode the string's form once per byte.
    var a = a
    var b = b
    return a.withUTF8 { left in
      b.withUTF8 { right in
        for index in 0..<left.count {
          let x = left[index]
          let y = right[index]
          if x == y { continue }
          let foldedX = x >= 65 && x <= 90 ? x | 0x20 : x
          let foldedY = y >= 65 && y <= 90 ? y | 0x20 : y
          if foldedX != foldedY { return false }
        }
        return true
      }
    }
  }

  public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}
