extension JSONWriter {
  /// The members of an object being written; commas are placed for you, nil optionals skipped.
  public struct ObjectFields {
    public var writer: JSONWriter
    var first = true

    @inline(__always) mutating func key(_ key: StaticString) {
      if first { first = false } else { writer.byte(UInt8(ascii: ",")) }
      writer.byte(UInt8(ascii: "\""))
      writer.raw(key)
      writer.raw("\":")
    }

    @inline(__always) mutating func key(_ key: String) {
      if first { first = false } else { writer.byte(UInt8(ascii: ",")) }
      writer.string(key)
      writer.byte(UInt8(ascii: ":"))
    }

    public mutating func field(_ name: StaticString, _ value: String) {
      key(name)
      writer.string(value)
    }
    public mutating func field(_ name: StaticString, _ value: Int) {
      key(name)
      writer.int(value)
    }
    public mutating func field(_ name: StaticString, _ value: Double) {
      key(name)
      writer.double(value)
    }
    public mutating func field(_ name: StaticString, _ value: Bool) {
      key(name)
      writer.bool(value)
    }
    public mutating func field(_ name: StaticString, _ value: JSON) {
      key(name)
      writer.value(value)
    }
    public mutating func field(_ name: StaticString, _ value: [String]) {
      key(name)
      writer.array(value) { $0.string($1) }
    }
    public mutating func field(_ name: StaticString, _ value: String?) {
      if let value { field(name, value) }
    }
    public mutating func field(_ name: StaticString, _ value: Int?) {
      if let value { field(name, value) }
    }
    public mutating func field(_ name: StaticString, _ value: Double?) {
      if let value { field(name, value) }
    }
    public mutating func field(_ name: StaticString, _ value: Bool?) {
      if let value { field(name, value) }
    }
    public mutating func field(_ name: StaticString, _ value: JSON?) {
      if let value { field(name, value) }
    }
    public mutating func field(_ name: StaticString, _ value: [String]?) {
      if let value { field(name, value) }
    }

    /// A member whose value is written by `body` (nested objects and arrays).
    public mutating func field(_ name: StaticString, _ body: (inout JSONWriter) -> Void) {
      key(name)
      body(&writer)
    }

    /// A member with a key known only at run time.
    public mutating func field(dynamic name: String, _ body: (inout JSONWriter) -> Void) {
      key(name)
      body(&writer)
    }

    /// A member that is written even when nil, as `null`.
    public mutating func fieldOrNull(_ name: StaticString, _ value: Int?) {
      key(name)
      if let value { writer.int(value) } else { writer.raw("null") }
    }
  }

  /// Writes an object whose members `body` adds.
  public mutating func object(_ body: (inout ObjectFields) -> Void) {
    var fields = ObjectFields(writer: JSONWriter(capacity: 0))
    swap(&fields.writer.bytes, &bytes)
    fields.writer.byte(UInt8(ascii: "{"))
    body(&fields)
    fields.writer.byte(UInt8(ascii: "}"))
    swap(&fields.writer.bytes, &bytes)
  }

  /// Writes an array, each element written by `element`.
  public mutating func array<C: Sequence>(
    _ elements: C, _ element: (inout JSONWriter, C.Element) -> Void
  ) {
    byte(UInt8(ascii: "["))
    var first = true
    for e in elements {
      if first { first = false } else { byte(UInt8(ascii: ",")) }
      element(&self, e)
    }
    byte(UInt8(ascii: "]"))
  }
}
