/// A pull reader: walks one JSON text token by token, so that a caller can turn it straight into
/// its own types without building a `JSON` tree first.
///
/// It accepts exactly what `JSONParser` accepts (the same strings, numbers, nesting limit), with
/// one difference left to the caller: it does not remember an object's keys, so refusing a
/// repeated key is the caller's job (a typed reader knows which keys it has seen).
///
/// ```
/// var reader = JSONReader(bytes)
/// try reader.enterObject()
/// while let key = try reader.nextKey() {
///   if key == "name" { name = try reader.string() } else { try reader.skipValue() }
/// }
/// try reader.finish()
/// ```
///
/// The bytes must stay valid while the reader is used.
public struct JSONReader: ~Copyable {
  /// One object key as it is written between its quotes, pointing into the input.
  public struct Key {
    /// The key's bytes between the quotes, escapes not resolved.
    public let bytes: UnsafeRawBufferPointer
    /// Whether the key contains a backslash escape (then `bytes` is not its value).
    public let hasEscapes: Bool

    @usableFromInline init(bytes: UnsafeRawBufferPointer, hasEscapes: Bool) {
      self.bytes = bytes
      self.hasEscapes = hasEscapes
    }

    /// Whether this key is exactly `text` (a key with escapes never is).
    @inlinable
    public static func == (key: Key, text: StaticString) -> Bool {
      guard text.hasPointerRepresentation else {
        // A one-character literal may be stored as its scalar.
        let scalar = text.unicodeScalar
        return !key.hasEscapes && scalar.isASCII && key.bytes.count == 1
          && key.bytes[0] == UInt8(scalar.value)
      }
      let count = text.utf8CodeUnitCount
      guard !key.hasEscapes, key.bytes.count == count else { return false }
      return count == 0
        || sameBytes(
          key.bytes.baseAddress.unsafelyUnwrapped, UnsafeRawPointer(text.utf8Start), count)
    }
  }

  /// The kind of the value the reader is at.
  public enum Kind: Sendable {
    case object, array, string, number, bool, null
  }

  @usableFromInline var parser: JSONParser
  /// Where `string()` looks for a string read before; nil: every string is made anew. Held
  /// unretained, as the bytes are: a reader lives inside one call that holds both (a retain and a
  /// release per record read otherwise).
  @usableFromInline let strings: Unmanaged<JSONStringCache>?
  @usableFromInline var depth = 0
  /// True right after `{` or `[`: the next member or element needs no comma before it.
  @usableFromInline var justOpened = false

  /// A reader over `bytes` that refuses nesting deeper than `maximumDepth`; with `strings`,
  /// `string()` hands back a string kept there for the same bytes rather than a new one. The
  /// caller keeps the bytes and `strings` alive while it reads.
  public init(
    _ bytes: UnsafeRawBufferPointer, maximumDepth: Int = JSONParser.maximumDepth,
    strings: borrowing JSONStringCache? = nil
  ) {
    parser = JSONParser(
      bytes.bindMemory(to: UInt8.self), repeatedKeys: .refuse, depthLimit: maximumDepth)
    // Borrowed, not taken: a cache handed over would be retained by the caller and released
    // here, per record read.
    self.strings = (copy strings).map { Unmanaged.passUnretained($0) }
    parser.skipWhitespace()
  }

  /// The byte offset the reader has reached.
  public var offset: Int { parser.index }

  /// Where the reader is, to come back to with `restore` (to read a value a second way).
  public struct Position {
    fileprivate let index: Int
    fileprivate let depth: Int
    fileprivate let justOpened: Bool
  }

  /// The reader's current position.
  public var position: Position {
    Position(index: parser.index, depth: depth, justOpened: justOpened)
  }

  /// Goes back to `position`, taken from this reader.
  public mutating func restore(_ position: Position) {
    parser.index = position.index
    depth = position.depth
    justOpened = position.justOpened
  }

  /// The bytes from the reader's offset to the end of its input: for a reader that recognizes
  /// members written exactly as a known writer writes them, and then moves past them with
  /// `skip(_:)`.
  public var unreadBytes: UnsafeRawBufferPointer {
    guard let base = parser.base else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: base + parser.index, count: parser.end - parser.index)
  }

  /// Moves `count` bytes past whole members the caller checked in `unreadBytes` (each with the
  /// comma before it, but the first after `{`), ending right after a member's `"key":`: the
  /// reader is then at that member's value, as after `nextKey`.
  public mutating func skip(_ count: Int) {
    parser.index += count
    justOpened = false
  }

  /// Checks that nothing but whitespace follows the value read.
  public mutating func finish() throws(JSONParseError) {
    parser.skipWhitespace()
    guard parser.index == parser.end else {
      throw parser.error("unexpected text after the JSON value")
    }
  }

  /// The kind of the next value, without reading it.
  @inlinable public mutating func kind() throws(JSONParseError) -> Kind {
    parser.skipWhitespace()
    guard parser.index < parser.end else { throw parser.error("unexpected end of input") }
    switch parser.byte(parser.index) {
    case UInt8(ascii: "{"): return .object
    case UInt8(ascii: "["): return .array
    case UInt8(ascii: "\""): return .string
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
    case UInt8(ascii: "n"): return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
    default: throw parser.error("unexpected character")
    }
  }

  // MARK: Objects and arrays

  /// Reads the `{` of an object; then call `nextKey` until it returns nil.
  @inlinable public mutating func enterObject() throws(JSONParseError) {
    try open(UInt8(ascii: "{"), "expected an object")
  }

  /// The next member's key (the reader is then at its value, which must be read or skipped), or
  /// nil after the object's closing `}`.
  @inlinable public mutating func nextKey() throws(JSONParseError) -> Key? {
    guard try advance(closing: UInt8(ascii: "}"), "expected ',' or '}'") else { return nil }
    guard parser.index < parser.end, parser.byte(parser.index) == UInt8(ascii: "\"") else {
      throw parser.error("expected a string key")
    }
    let key = try scanString()
    parser.skipWhitespace()
    guard parser.index < parser.end, parser.byte(parser.index) == UInt8(ascii: ":") else {
      throw parser.error("expected ':'")
    }
    parser.index += 1
    parser.skipWhitespace()
    return key
  }

  /// Moves to the next member's value when its key is `key` written the way compact writers
  /// write it (no whitespace, no escapes: `,"key":`), and returns true; otherwise moves nothing
  /// and returns false, and `nextKey` reads whatever comes. Faster than `nextKey` for a reader
  /// that knows which member a writer puts next. `key` must be printable ASCII other than `"`
  /// and `\`.
  @inlinable public mutating func nextKey(is key: StaticString) -> Bool {
    guard let base = parser.base else { return false }
    var i = parser.index
    if !justOpened {
      guard i < parser.end, parser.byte(i) == UInt8(ascii: ",") else { return false }
      i &+= 1
    }
    let count = key.hasPointerRepresentation ? key.utf8CodeUnitCount : 1
    guard parser.end &- i >= count &+ 3, parser.byte(i) == UInt8(ascii: "\""),
      parser.byte(i &+ 1 &+ count) == UInt8(ascii: "\""),
      parser.byte(i &+ 2 &+ count) == UInt8(ascii: ":")
    else { return false }
    if key.hasPointerRepresentation {
      guard sameBytes(UnsafeRawPointer(base + (i &+ 1)), UnsafeRawPointer(key.utf8Start), count)
      else { return false }
    } else {
      // A one-character literal may be stored as its scalar.
      let scalar = key.unicodeScalar
      guard scalar.isASCII, parser.byte(i &+ 1) == UInt8(scalar.value) else { return false }
    }
    parser.index = i &+ count &+ 3
    justOpened = false
    return true
  }

  /// Reads the `[` of an array; then call `nextElement` until it returns false.
  @inlinable public mutating func enterArray() throws(JSONParseError) {
    try open(UInt8(ascii: "["), "expected an array")
  }

  /// Whether another element follows (the reader is then at it); false after the closing `]`.
  @inlinable public mutating func nextElement() throws(JSONParseError) -> Bool {
    try advance(closing: UInt8(ascii: "]"), "expected ',' or ']'")
  }

  @inlinable mutating func open(_ byte: UInt8, _ reason: String) throws(JSONParseError) {
    parser.skipWhitespace()
    guard parser.index < parser.end, parser.byte(parser.index) == byte else {
      throw parser.error(parser.index < parser.end ? reason : "unexpected end of input")
    }
    guard depth < parser.depthLimit else { throw parser.error("nesting too deep") }
    depth += 1
    parser.index += 1
    justOpened = true
  }

  /// Moves past the `,` before the next member or element; false (after consuming it) at
  /// `closing`.
  @inlinable mutating func advance(closing: UInt8, _ reason: String) throws(JSONParseError) -> Bool
  {
    parser.skipWhitespace()
    guard parser.index < parser.end else { throw parser.error("unexpected end of input") }
    let byte = parser.byte(parser.index)
    if byte == closing {
      parser.index += 1
      depth -= 1
      justOpened = false
      return false
    }
    if justOpened {
      justOpened = false
    } else {
      guard byte == UInt8(ascii: ",") else { throw parser.error(reason) }
      parser.index += 1
      parser.skipWhitespace()
    }
    return true
  }

  // MARK: Scalars

  /// Reads a string.
  @inlinable public mutating func string() throws(JSONParseError) -> String {
    try expect(UInt8(ascii: "\""), "expected a string")
    guard let strings else { return try parser.parseString() }
    let start = parser.index
    let text = try scanString()
    guard !text.hasEscapes else {
      parser.index = start
      return try parser.parseString()
    }
    return strings._withUnsafeGuaranteedRef { $0.string(text.bytes) }
  }

  /// Reads a string without making a `String` of it: its bytes between the quotes (checked as
  /// `string()` would), with escapes unresolved.
  @inlinable public mutating func stringBytes() throws(JSONParseError) -> Key {
    try expect(UInt8(ascii: "\""), "expected a string")
    return try scanString()
  }

  /// Reads `null` and returns true, or returns false without reading anything.
  @inlinable public mutating func null() throws(JSONParseError) -> Bool {
    parser.skipWhitespace()
    guard parser.index < parser.end, parser.byte(parser.index) == UInt8(ascii: "n") else {
      return false
    }
    try parser.expectLiteral("null")
    return true
  }

  /// Reads `true` or `false`.
  @inlinable public mutating func bool() throws(JSONParseError) -> Bool {
    parser.skipWhitespace()
    guard parser.index < parser.end else { throw parser.error("unexpected end of input") }
    switch parser.byte(parser.index) {
    case UInt8(ascii: "t"):
      try parser.expectLiteral("true")
      return true
    case UInt8(ascii: "f"):
      try parser.expectLiteral("false")
      return false
    default: throw parser.error("expected a boolean")
    }
  }

  /// Reads a number written as an integer that fits in `Int`.
  @inlinable public mutating func int() throws(JSONParseError) -> Int {
    if let value = shortPositiveInteger() { return value }
    let start = parser.index
    switch try number() {
    case .int(let value): return value
    default: throw JSONParseError(offset: start, reason: "expected an integer")
    }
  }

  /// Reads a number as `JSONParser` would (`.int`, `.double` or `.number`).
  @inlinable public mutating func number() throws(JSONParseError) -> JSON {
    if let value = shortPositiveInteger() { return .int(value) }
    parser.skipWhitespace()
    guard parser.index < parser.end else { throw parser.error("unexpected end of input") }
    switch parser.byte(parser.index) {
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parser.parseNumber()
    default: throw parser.error("expected a number")
    }
  }

  /// Reads the integer the reader is at when it is written as most integers are (1 to 17 digits,
  /// no sign, no leading zero, no fraction or exponent, nothing before it), which the parser
  /// would read as `.int`; nil, reading nothing, for anything else, which the parser reads.
  @inlinable @inline(__always) mutating func shortPositiveInteger() -> Int? {
    let start = parser.index
    guard start < parser.end, case let first = parser.byte(start), first &- 0x31 < 9 else {
      return nil
    }
    var value = Int(first &- 0x30)
    var i = start &+ 1
    while i < parser.end, i &- start < 18, case let digit = parser.byte(i) &- 0x30, digit < 10 {
      value = value &* 10 &+ Int(digit)
      i &+= 1
    }
    guard i < parser.end, i &- start < 18 else { return nil }
    let next = parser.byte(i)
    guard next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E"),
      next &- 0x30 >= 10
    else { return nil }
    parser.index = i
    return value
  }

  /// Reads the next value whole, as a tree.
  public mutating func value() throws(JSONParseError) -> JSON {
    parser.skipWhitespace()
    justOpened = false
    return try parser.parseValue(depth: depth)
  }

  /// Reads past the next value, checking it as `value()` would; strings and literals are checked
  /// without building anything.
  public mutating func skipValue() throws(JSONParseError) {
    switch try kind() {
    case .string: _ = try scanString()
    case .null: try parser.expectLiteral("null")
    case .bool: _ = try bool()
    case .number, .object, .array: _ = try value()
    }
  }

  @inlinable mutating func expect(_ byte: UInt8, _ reason: String) throws(JSONParseError) {
    parser.skipWhitespace()
    guard parser.index < parser.end else { throw parser.error("unexpected end of input") }
    guard parser.byte(parser.index) == byte else { throw parser.error(reason) }
  }

  /// Reads past a string, checking its escapes and UTF-8 as `string()` would, and returns its
  /// bytes between the quotes.
  @usableFromInline mutating func scanString() throws(JSONParseError) -> Key {
    let open = parser.index
    parser.index += 1
    let start = parser.index
    var escapes = false
    var high: UInt8 = 0
    while parser.index < parser.end {
      parser.skipPlainStringBytes()
      guard parser.index < parser.end else { break }
      let c = parser.byte(parser.index)
      high |= c
      if c == UInt8(ascii: "\"") {
        let bytes = UnsafeRawBufferPointer(
          start: parser.base.unsafelyUnwrapped + start, count: parser.index - start)
        if escapes {
          // Resolve the escapes (and check the UTF-8) the one way the parser does.
          parser.index = open
          _ = try parser.parseString()
        } else {
          parser.index += 1
          if high >= 0x80 {
            guard String(validating: bytes, as: UTF8.self) != nil else {
              throw JSONParseError(offset: start, reason: "invalid UTF-8 in a string")
            }
          }
        }
        return Key(bytes: bytes, hasEscapes: escapes)
      }
      if c == UInt8(ascii: "\\") {
        escapes = true
        parser.index += 2
        continue
      }
      if c < 0x20 { throw parser.error("control character in a string") }
      parser.index += 1
    }
    throw JSONParseError(offset: open, reason: "unterminated string")
  }
}

/// Whether `count` bytes at `a` and `b` are equal, comparing eight at a time.
@inlinable
func sameBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
  // Up to eight bytes (most keys): two loads each that may overlap.
  switch count {
  case 4...8:
    return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
      && a.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
        == b.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
  case 2...3:
    return a.loadUnaligned(as: UInt16.self) == b.loadUnaligned(as: UInt16.self)
      && a.loadUnaligned(fromByteOffset: count &- 2, as: UInt16.self)
        == b.loadUnaligned(fromByteOffset: count &- 2, as: UInt16.self)
  case 1: return a.load(as: UInt8.self) == b.load(as: UInt8.self)
  case 0: return true
  default: break
  }
  var i = 0
  while count - i >= 8 {
    guard
      a.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        == b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
    else { return false }
    i += 8
  }
  while i < count {
    guard a.load(fromByteOffset: i, as: UInt8.self) == b.load(fromByteOffset: i, as: UInt8.self)
    else { return false }
    i += 1
  }
  return true
}

extension JSONReader {
  /// Thrown by `readObject(pulling:_:)` for an object it does not read member by member.
  public struct UnusualObject: Error {
    public init() {}
  }

  /// Reads the object the reader is at: the member named `name` with `pull`, straight from the
  /// reader, and every other member as a tree, in order. Throws `UnusualObject` for a key with
  /// escapes, a repeated key or no member `name`, so that the caller can read the whole object
  /// as a tree instead.
  public mutating func readObject<Pulled>(
    pulling name: String, _ pull: (inout JSONReader) throws -> Pulled
  ) throws -> (pulled: Pulled, others: [(String, JSON)]) {
    var others: [(String, JSON)] = []
    var seen: Set<String> = []
    var pulled: Pulled?
    try enterObject()
    while let key = try nextKey() {
      guard !key.hasEscapes else { throw UnusualObject() }
      let member = String(decoding: key.bytes, as: UTF8.self)
      guard seen.insert(member).inserted else { throw UnusualObject() }
      if member == name {
        pulled = try pull(&self)
      } else {
        others.append((member, try value()))
      }
    }
    guard let pulled else { throw UnusualObject() }
    return (pulled, others)
  }
}
