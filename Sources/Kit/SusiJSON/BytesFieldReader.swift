/// Reads typed fields straight from the bytes of a JSON object, for codecs written against
/// `FieldReading`, without building a tree: the object's members are located once (each key and
/// where its value starts and ends), and a value is parsed when a field asks for it, into what
/// `FieldReader` would give for the same text.
///
/// It reads the objects programs write; for any other it throws, and the caller reads the text
/// as a tree instead, which then gives the result or the error. So it never has to agree with the
/// tree on an error, only on a result:
/// - a key with an escape or a byte that is not printable ASCII, or a repeated key, throw
///   `JSONReader.UnusualObject`;
/// - any field rule that fails throws a `JSONShapeError` without a useful message;
/// - members are located by their structure only; a value is checked when it is read, and
///   `JSONReader.readFields(_:)` throws `UnusualObject` when the rules left a member unread. So
///   every byte of the object has been checked as the parser would when it returns a result.
///
/// Made only by `JSONReader.readFields(_:)`, and valid only inside its body.
public struct BytesFieldReader: FieldReading {
  let context: UnsafeMutablePointer<Context>
  /// This object's members are `context.members[first..<first + count]`.
  let first: Int
  let count: Int
  /// How many objects and arrays hold this object's members, itself included.
  let depth: Int

  init(_ context: UnsafeMutablePointer<Context>, first: Int, count: Int, depth: Int) {
    self.context = context
    self.first = first
    self.count = count
    self.depth = depth
  }

  /// Where a member lies in the text: offsets into the bytes.
  struct Member {
    var keyStart: Int32
    var valueStart: Int32
    /// Just past the value.
    var valueEnd: Int32
    var keyCount: UInt16
    /// The value's first byte (`"`, `{`, `[`, `t`, `f`, `n` or a number's first character).
    var kind: UInt8
    var flags: Flags
  }

  struct Flags: OptionSet {
    var rawValue: UInt8
    /// A rule read the value (and so checked it).
    static let read = Flags(rawValue: 1)
    /// A string of printable ASCII without escapes, whose bytes are its value; or a number
    /// written as 1 to 18 digits without a leading zero (or `0`), which is that integer.
    static let plain = Flags(rawValue: 2)
  }

  /// What the readers of one object and the objects inside it share.
  struct Context {
    let base: UnsafePointer<UInt8>
    let end: Int
    let depthLimit: Int
    let strings: Unmanaged<JSONStringCache>?
    /// The members located so far: on the caller's stack until they outgrow it, then on the
    /// heap (`ownsMembers`).
    var members: UnsafeMutablePointer<Member>
    var capacity: Int
    var ownsMembers = false
    var used = 0
    /// Where the next look-up starts: the member after the last one found, as field rules read
    /// members mostly in the order they were written.
    var hint = 0

    init(
      base: UnsafePointer<UInt8>, end: Int, depthLimit: Int, strings: Unmanaged<JSONStringCache>?,
      members: UnsafeMutableBufferPointer<Member>
    ) {
      self.base = base
      self.end = end
      self.depthLimit = depthLimit
      self.strings = strings
      self.members = members.baseAddress.unsafelyUnwrapped
      capacity = members.count
    }

    @inline(__always) func byte(_ i: Int) -> UInt8 { i < end ? base[i] : 0 }

    @inline(__always) func skipWhitespace(_ i: inout Int) {
      while i < end, case let c = base[i], c <= 0x20,
        c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09
      {
        i &+= 1
      }
    }

    /// Moves `i` (at a `"`) past the string's closing quote; returns whether the string is
    /// plain (printable ASCII without escapes).
    @inline(__always) func skipString(_ i: inout Int) throws(JSONReader.UnusualObject) -> Bool {
      i &+= 1
      var plain = true
      while end &- i >= 8 {
        let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
        let special = JSONParser.unplainBytes(word)
        if special == 0 {
          i &+= 8
          continue
        }
        i &+= special.trailingZeroBitCount &>> 3
        switch base[i] {
        case UInt8(ascii: "\""):
          i &+= 1
          return plain
        case UInt8(ascii: "\\"):
          plain = false
          i &+= 2
        default:
          plain = false
          i &+= 1
        }
      }
      while i < end {
        switch base[i] {
        case UInt8(ascii: "\""):
          i &+= 1
          return plain
        case UInt8(ascii: "\\"):
          plain = false
          i &+= 2
        case 0x20..<0x80: i &+= 1
        default:
          plain = false
          i &+= 1
        }
      }
      throw JSONReader.UnusualObject()
    }

    /// Locates the members of the object whose `{` is at `start` and nested `depth` deep, adding
    /// them to `members`; returns the range they take there and the offset just past its `}`.
    mutating func locate(objectAt start: Int, depth: Int) throws(JSONReader.UnusualObject)
      -> (first: Int, count: Int, end: Int)
    {
      guard depth <= depthLimit, byte(start) == UInt8(ascii: "{") else {
        throw JSONReader.UnusualObject()
      }
      let first = used
      var i = start &+ 1
      skipWhitespace(&i)
      if byte(i) == UInt8(ascii: "}") { return (first, 0, i &+ 1) }
      while true {
        guard byte(i) == UInt8(ascii: "\"") else { throw JSONReader.UnusualObject() }
        let keyStart = i &+ 1
        guard try skipString(&i) else { throw JSONReader.UnusualObject() }
        let keyCount = i &- 1 &- keyStart
        guard keyCount <= Int(UInt16.max) else { throw JSONReader.UnusualObject() }
        skipWhitespace(&i)
        guard byte(i) == UInt8(ascii: ":") else { throw JSONReader.UnusualObject() }
        i &+= 1
        skipWhitespace(&i)
        let valueStart = i
        let kind = byte(i)
        let flags = try skipValue(&i)
        for m in first..<used where Int(members[m].keyCount) == keyCount {
          if sameBytes(base + keyStart, base + Int(members[m].keyStart), keyCount) {
            throw JSONReader.UnusualObject()
          }
        }
        if used == capacity { growMembers() }
        members[used] = Member(
          keyStart: Int32(truncatingIfNeeded: keyStart),
          valueStart: Int32(truncatingIfNeeded: valueStart),
          valueEnd: Int32(truncatingIfNeeded: i), keyCount: UInt16(truncatingIfNeeded: keyCount),
          kind: kind, flags: flags)
        used &+= 1
        skipWhitespace(&i)
        switch byte(i) {
        case UInt8(ascii: ","):
          i &+= 1
          skipWhitespace(&i)
        case UInt8(ascii: "}"): return (first, used &- first, i &+ 1)
        default: throw JSONReader.UnusualObject()
        }
      }
    }

    /// Moves the members to a buffer four times as large.
    mutating func growMembers() {
      let larger = UnsafeMutablePointer<Member>.allocate(capacity: capacity &* 4)
      larger.initialize(from: members, count: used)
      if ownsMembers { members.deallocate() }
      members = larger
      capacity &*= 4
      ownsMembers = true
    }

    /// Moves `i` past the value there by its structure alone (strings, brackets and the tokens
    /// between them); the value is checked when it is read, except `true`, `false` and `null`,
    /// checked here. Returns `.plain` for a plain string or integer.
    func skipValue(_ i: inout Int) throws(JSONReader.UnusualObject) -> Flags {
      let start = i
      switch byte(i) {
      case UInt8(ascii: "\""): return try skipString(&i) ? .plain : []
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        var level = 0
        while i < end {
          switch base[i] {
          case UInt8(ascii: "\""):
            _ = try skipString(&i)
            continue
          case UInt8(ascii: "{"), UInt8(ascii: "["): level &+= 1
          case UInt8(ascii: "}"), UInt8(ascii: "]"):
            level &-= 1
            if level == 0 {
              i &+= 1
              return []
            }
          default: break
          }
          i &+= 1
        }
        throw JSONReader.UnusualObject()
      case UInt8(ascii: "t"): try skipLiteral(&i, "true")
      case UInt8(ascii: "f"): try skipLiteral(&i, "false")
      case UInt8(ascii: "n"): try skipLiteral(&i, "null")
      default:
        var digits = true
        while i < end {
          switch base[i] {
          case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0a, 0x0d, 0x09:
            guard i > start else { throw JSONReader.UnusualObject() }
            let count = i &- start
            return digits && count <= 18 && (count == 1 || base[start] != UInt8(ascii: "0"))
              ? .plain : []
          case UInt8(ascii: "0")...UInt8(ascii: "9"): i &+= 1
          default:
            digits = false
            i &+= 1
          }
        }
        throw JSONReader.UnusualObject()
      }
      return []
    }

    func skipLiteral(_ i: inout Int, _ literal: StaticString) throws(JSONReader.UnusualObject) {
      let count = literal.utf8CodeUnitCount
      guard end &- i >= count, sameBytes(base + i, literal.utf8Start, count) else {
        throw JSONReader.UnusualObject()
      }
      i &+= count
    }

    /// The string of the plain string between `start` and `end`.
    @inline(__always) func plainString(_ start: Int, _ end: Int) -> String {
      let bytes = UnsafeRawBufferPointer(start: base + start, count: end &- start)
      guard let strings else { return String(decoding: bytes, as: UTF8.self) }
      return strings._withUnsafeGuaranteedRef { $0.string(bytes) }
    }

    /// A parser at `index`, to read a value the way the tree parser does.
    func parser(at index: Int) -> JSONParser {
      var parser = JSONParser(
        UnsafeBufferPointer(start: base, count: end), repeatedKeys: .refuse,
        depthLimit: depthLimit)
      parser.index = index
      return parser
    }

    /// The string whose `"` is at `start` and that ends at `end`, read as the parser does.
    func string(at start: Int, end: Int, plain: Bool) throws(JSONShapeError) -> String {
      if plain { return plainString(start &+ 1, end &- 1) }
      var parser = parser(at: start)
      let string: String
      do {
        string = try parser.parseString()
      } catch {
        throw BytesFieldReader.unread
      }
      guard parser.index == end else { throw BytesFieldReader.unread }
      return string
    }
  }

  // MARK: Finding and reading members

  /// Thrown by a field rule that does not read: the caller reads the text as a tree, which
  /// names the problem.
  static let unread = JSONShapeError(path: "", reason: "not read from bytes")

  /// Room made at once for the elements of an array before they are counted: the lists in a
  /// record are mostly short, and growing one from empty allocates at 1, 2 and 4 elements.
  static let shortListCapacity = 4

  /// The index in `context.members` of the member `key`, or nil.
  func find(_ key: String) -> Int? {
    if let found = key.utf8.withContiguousStorageIfAvailable({ find(UnsafeRawBufferPointer($0)) }) {
      return found
    }
    return Array(key.utf8).withUnsafeBytes { find($0) }
  }

  private func find(_ key: UnsafeRawBufferPointer) -> Int? {
    guard count > 0 else { return nil }
    let keyCount = key.count
    let end = first &+ count
    var m = context.pointee.hint
    if m < first || m >= end { m = first }
    let members = context.pointee.members
    let base = context.pointee.base
    for _ in 0..<count {
      if Int(members[m].keyCount) == keyCount,
        keyCount == 0
          || sameBytes(
            base + Int(members[m].keyStart), key.baseAddress.unsafelyUnwrapped, keyCount)
      {
        context.pointee.hint = m &+ 1
        return m
      }
      m &+= 1
      if m == end { m = first }
    }
    return nil
  }

  @inline(__always) private func member(_ m: Int) -> Member { context.pointee.members[m] }

  @inline(__always) private func markRead(_ m: Int) {
    context.pointee.members[m].flags.insert(.read)
  }

  /// The member `key` when it is present and not null (a null one is then read); nil otherwise.
  @inline(__always) private func present(_ key: String) -> Int? {
    guard let m = find(key) else { return nil }
    guard member(m).kind != UInt8(ascii: "n") else {
      markRead(m)
      return nil
    }
    return m
  }

  /// The member `key`, which must be present and not null.
  @inline(__always) private func required(_ key: String) throws(JSONShapeError) -> Int {
    guard let m = present(key) else { throw Self.unread }
    return m
  }

  private func readString(_ m: Int) throws(JSONShapeError) -> String {
    let member = member(m)
    guard member.kind == UInt8(ascii: "\"") else { throw Self.unread }
    let string = try context.pointee.string(
      at: Int(member.valueStart), end: Int(member.valueEnd), plain: member.flags.contains(.plain))
    markRead(m)
    return string
  }

  /// The integer member `m` is when it is written plainly (1 to 18 digits), then read; nil
  /// otherwise.
  @inline(__always) private func plainInteger(_ m: Int) -> Int? {
    let member = member(m)
    guard member.kind &- 0x30 < 10, member.flags.contains(.plain) else { return nil }
    var value = 0
    for i in Int(member.valueStart)..<Int(member.valueEnd) {
      value = value &* 10 &+ Int(context.pointee.base[i] &- 0x30)
    }
    markRead(m)
    return value
  }

  private func readNumber(_ m: Int) throws(JSONShapeError) -> JSON {
    if let value = plainInteger(m) { return .int(value) }
    let member = member(m)
    let start = Int(member.valueStart)
    let end = Int(member.valueEnd)
    guard member.kind &- 0x30 < 10 || member.kind == UInt8(ascii: "-") else { throw Self.unread }
    var parser = context.pointee.parser(at: start)
    let number: JSON
    do {
      number = try parser.parseNumber()
    } catch {
      throw Self.unread
    }
    guard parser.index == end else { throw Self.unread }
    markRead(m)
    return number
  }

  private func readInt(_ m: Int) throws(JSONShapeError) -> Int {
    // Most integers are plain: no `JSON` value made and taken apart.
    if let value = plainInteger(m) { return value }
    guard let i = try readNumber(m).int else { throw Self.unread }
    return i
  }

  private func readDouble(_ m: Int) throws(JSONShapeError) -> Double {
    guard let d = try readNumber(m).double else { throw Self.unread }
    return d
  }

  private func readArray(_ m: Int) throws(JSONShapeError) -> [JSON] {
    guard case .array(let a) = try readValue(m) else { throw Self.unread }
    return a
  }

  private func readBool(_ m: Int) throws(JSONShapeError) -> Bool {
    // `locate` checked the literal.
    switch member(m).kind {
    case UInt8(ascii: "t"):
      markRead(m)
      return true
    case UInt8(ascii: "f"):
      markRead(m)
      return false
    default: throw Self.unread
    }
  }

  private func readValue(_ m: Int) throws(JSONShapeError) -> JSON {
    let member = member(m)
    // Scalars `locate` checked, or that need no parser, as the parser would make them.
    switch member.kind {
    case UInt8(ascii: "\"") where member.flags.contains(.plain): return .string(try readString(m))
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber(m)
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try readBool(m))
    case UInt8(ascii: "n"):
      markRead(m)
      return .null
    default: break
    }
    var parser = context.pointee.parser(at: Int(member.valueStart))
    let value: JSON
    do {
      value = try parser.parseValue(depth: depth)
    } catch {
      throw Self.unread
    }
    guard parser.index == Int(member.valueEnd) else { throw Self.unread }
    markRead(m)
    return value
  }

  private func readObject(_ m: Int) throws(JSONShapeError) -> BytesFieldReader {
    let member = member(m)
    guard member.kind == UInt8(ascii: "{") else { throw Self.unread }
    let object: (first: Int, count: Int, end: Int)
    do {
      object = try context.pointee.locate(objectAt: Int(member.valueStart), depth: depth &+ 1)
    } catch {
      throw Self.unread
    }
    guard object.end == Int(member.valueEnd) else { throw Self.unread }
    markRead(m)
    return BytesFieldReader(context, first: object.first, count: object.count, depth: depth &+ 1)
  }

  /// Calls `element` with the offset of each element of the array member `m` (which must be
  /// an array), which returns the offset past it; marks the member read when the array ends
  /// where `locate` found its end.
  private func forEachElement(
    _ m: Int, _ element: (Int) throws(JSONShapeError) -> Int
  ) throws(JSONShapeError) {
    let member = member(m)
    guard member.kind == UInt8(ascii: "["), depth < context.pointee.depthLimit else {
      throw Self.unread
    }
    var i = Int(member.valueStart) &+ 1
    context.pointee.skipWhitespace(&i)
    if context.pointee.byte(i) == UInt8(ascii: "]") {
      i &+= 1
    } else {
      while true {
        i = try element(i)
        context.pointee.skipWhitespace(&i)
        let c = context.pointee.byte(i)
        i &+= 1
        if c == UInt8(ascii: "]") { break }
        guard c == UInt8(ascii: ",") else { throw Self.unread }
        context.pointee.skipWhitespace(&i)
      }
    }
    guard i == Int(member.valueEnd) else { throw Self.unread }
    markRead(m)
  }

  // MARK: FieldReading

  public func fieldPath(_ key: String) -> String { key }

  public func has(_ key: String) -> Bool { present(key) != nil }

  public func contains(_ key: String) -> Bool { find(key) != nil }

  public func value(_ key: String) throws(JSONShapeError) -> JSON {
    guard let m = find(key) else { throw Self.unread }
    return try readValue(m)
  }

  public func optionalValue(_ key: String) throws(JSONShapeError) -> JSON? {
    try present(key).map { (m) throws(JSONShapeError) in try readValue(m) }
  }

  public func string(_ key: String) throws(JSONShapeError) -> String {
    try readString(try required(key))
  }

  public func optionalString(_ key: String) throws(JSONShapeError) -> String? {
    try present(key).map { (m) throws(JSONShapeError) in try readString(m) }
  }

  public func int(_ key: String) throws(JSONShapeError) -> Int {
    try readInt(try required(key))
  }

  public func optionalInt(_ key: String) throws(JSONShapeError) -> Int? {
    try present(key).map { (m) throws(JSONShapeError) in try readInt(m) }
  }

  public func double(_ key: String) throws(JSONShapeError) -> Double {
    try readDouble(try required(key))
  }

  public func optionalDouble(_ key: String) throws(JSONShapeError) -> Double? {
    try present(key).map { (m) throws(JSONShapeError) in try readDouble(m) }
  }

  public func bool(_ key: String) throws(JSONShapeError) -> Bool {
    try readBool(try required(key))
  }

  public func optionalBool(_ key: String) throws(JSONShapeError) -> Bool? {
    try present(key).map { (m) throws(JSONShapeError) in try readBool(m) }
  }

  public func array(_ key: String) throws(JSONShapeError) -> [JSON] {
    try readArray(try required(key))
  }

  public func optionalArray(_ key: String) throws(JSONShapeError) -> [JSON]? {
    try present(key).map { (m) throws(JSONShapeError) in try readArray(m) }
  }

  public func strings(_ key: String) throws(JSONShapeError) -> [String] {
    var out: [String] = []
    out.reserveCapacity(Self.shortListCapacity)
    let context = context
    try forEachElement(try required(key)) { (start) throws(JSONShapeError) in
      guard context.pointee.byte(start) == UInt8(ascii: "\"") else { throw Self.unread }
      var end = start
      let plain: Bool
      do {
        plain = try context.pointee.skipString(&end)
      } catch {
        throw Self.unread
      }
      out.append(try context.pointee.string(at: start, end: end, plain: plain))
      return end
    }
    return out
  }

  public func object(_ key: String) throws(JSONShapeError) -> BytesFieldReader {
    try readObject(try required(key))
  }

  public func optionalObject(_ key: String) throws(JSONShapeError) -> BytesFieldReader? {
    try present(key).map { (m) throws(JSONShapeError) in try readObject(m) }
  }

  public func objects(_ key: String) throws(JSONShapeError) -> [BytesFieldReader] {
    var out: [BytesFieldReader] = []
    out.reserveCapacity(Self.shortListCapacity)
    let context = context
    let depth = depth &+ 2
    try forEachElement(try required(key)) { (start) throws(JSONShapeError) in
      let object: (first: Int, count: Int, end: Int)
      do {
        object = try context.pointee.locate(objectAt: start, depth: depth)
      } catch {
        throw Self.unread
      }
      out.append(BytesFieldReader(context, first: object.first, count: object.count, depth: depth))
      return object.end
    }
    return out
  }

  public var memberCount: Int { count }

  public func forEachMember(_ body: (String, JSON) throws(JSONShapeError) -> Void)
    throws(JSONShapeError)
  {
    for m in first..<(first &+ count) {
      try body(key(m), try readValue(m))
    }
  }

  public func rejectUnknownKeys(_ allowed: Set<String>) throws(JSONShapeError) {
    for m in first..<(first &+ count) where !allowed.contains(key(m)) { throw Self.unread }
  }

  /// The key of member `m` (printable ASCII without escapes, as `locate` checked).
  private func key(_ m: Int) -> String {
    let member = member(m)
    return String(
      decoding: UnsafeBufferPointer(
        start: context.pointee.base + Int(member.keyStart), count: Int(member.keyCount)),
      as: UTF8.self)
  }
}

extension JSONReader {
  /// How many members (of an object and the objects inside it) `readFields` keeps on the stack
  /// (1 KiB); more go to the heap.
  static let fieldReaderCapacity = 64

  /// Reads the object the reader is at with `body`, through a `BytesFieldReader` over its
  /// bytes, and moves past it. Throws `UnusualObject` for an object the field reader does not
  /// read (see `BytesFieldReader`), or when `body` returned without reading every member: the
  /// caller then reads the text as a tree. An error `body` throws is rethrown.
  public mutating func readFields(_ body: (BytesFieldReader) throws -> Void) throws {
    parser.skipWhitespace()
    guard let base = parser.base, parser.end <= Int(Int32.max) else { throw UnusualObject() }
    let start = parser.index
    let end = parser.end
    let depthLimit = parser.depthLimit
    let depth = depth &+ 1
    let strings = strings
    let objectEnd = try withUnsafeTemporaryAllocation(
      of: BytesFieldReader.Member.self, capacity: Self.fieldReaderCapacity
    ) { members in
      var context = BytesFieldReader.Context(
        base: base, end: end, depthLimit: depthLimit, strings: strings, members: members)
      defer { if context.ownsMembers { context.members.deallocate() } }
      return try withUnsafeMutablePointer(to: &context) { context in
        let object = try context.pointee.locate(objectAt: start, depth: depth)
        try body(BytesFieldReader(context, first: object.first, count: object.count, depth: depth))
        for m in 0..<context.pointee.used
        where !context.pointee.members[m].flags.contains(.read) {
          throw UnusualObject()
        }
        return object.end
      }
    }
    parser.index = objectEnd
    justOpened = false
  }
}
