/// Reads typed fields straight from the bytes of a JSON object, for codecs written against
/// `FieldReading`, without building a tree: the object is located in one pass (each member's key
/// and where its value starts and ends, and the same for the members and elements of the objects
/// and arrays inside it), and a value is parsed when a field asks for it, into what
/// `FieldReader` would give for the same text.
///
/// It reads the objects programs write; for any other it throws, and the caller reads the text
/// as a tree instead, which then gives the result or the error. So it never has to agree with the
/// tree on an error, only on a result:
/// - a key with an escape or a byte that is not printable ASCII, or a repeated key, throw
///   `JSONReader.UnusualObject`;
/// - any field rule that fails throws a `JSONShapeError` without a useful message;
/// - members and elements are located by their structure only; a value is checked when it is
///   read, and `JSONReader.readFields(_:)` throws `UnusualObject` when the rules left a member or
///   element unread (or, asked to, checks those as the parser would). So every byte of the object
///   has been checked as the parser would when it returns a result.
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

  /// Where a member (or an array's element, which has no key) lies in the text: offsets into the
  /// bytes.
  struct Member {
    var keyStart: Int32
    var valueStart: Int32
    /// Just past the value.
    var valueEnd: Int32
    /// For an object or an array: its members or elements are
    /// `context.members[first..<first + count]`.
    var first: Int32
    var count: Int32
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

  /// A growing list of members: on the caller's stack until it outgrows it, then on the heap.
  struct Members {
    private(set) var base: UnsafeMutablePointer<Member>
    private var capacity: Int
    private var ownsBase = false
    var count = 0

    init(_ room: UnsafeMutableBufferPointer<Member>) {
      base = room.baseAddress.unsafelyUnwrapped
      capacity = room.count
    }

    @inline(__always) subscript(_ m: Int) -> Member {
      get { base[m] }
      nonmutating set { base[m] = newValue }
    }

    @inline(__always) mutating func append(_ member: Member) {
      if count == capacity { grow(to: capacity &* 4) }
      base[count] = member
      count &+= 1
    }

    /// Appends `others[range]`.
    mutating func append(_ others: Members, _ range: Range<Int>) {
      if count &+ range.count > capacity { grow(to: (count &+ range.count) &* 4) }
      (base + count).initialize(from: others.base + range.lowerBound, count: range.count)
      count &+= range.count
    }

    /// Moves the members to a buffer of `larger` places.
    private mutating func grow(to larger: Int) {
      let moved = UnsafeMutablePointer<Member>.allocate(capacity: larger)
      moved.initialize(from: base, count: count)
      release()
      base = moved
      capacity = larger
      ownsBase = true
    }

    func release() { if ownsBase { base.deallocate() } }
  }

  /// What the readers of one object and the objects inside it share.
  struct Context {
    let base: UnsafePointer<UInt8>
    let end: Int
    let depthLimit: Int
    let strings: Unmanaged<JSONStringCache>?
    /// The members and elements located: those of each object or array together, after those
    /// of the objects and arrays inside it.
    var members: Members
    /// The members and elements of the objects and arrays being located, the innermost last:
    /// they move to `members` when their object or array ends.
    var open: Members
    /// Where the next look-up starts: the member after the last one found, as field rules read
    /// members mostly in the order they were written.
    var hint = 0

    init(
      base: UnsafePointer<UInt8>, end: Int, depthLimit: Int, strings: Unmanaged<JSONStringCache>?,
      members: UnsafeMutableBufferPointer<Member>, open: UnsafeMutableBufferPointer<Member>
    ) {
      self.base = base
      self.end = end
      self.depthLimit = depthLimit
      self.strings = strings
      self.members = Members(members)
      self.open = Members(open)
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

    /// Locates the object or array whose `{` or `[` is at `start`, nested `depth` deep, and the
    /// objects and arrays inside it, adding their members and elements to `members`; returns
    /// the entry (without a key) that says where it lies and where its own members are.
    mutating func locate(at start: Int, depth: Int) throws(JSONReader.UnusualObject) -> Member {
      let kind = byte(start)
      let isObject = kind == UInt8(ascii: "{")
      guard depth <= depthLimit, isObject || kind == UInt8(ascii: "[") else {
        throw JSONReader.UnusualObject()
      }
      let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
      let first = open.count
      var i = start &+ 1
      skipWhitespace(&i)
      if byte(i) == close {
        i &+= 1
      } else {
        while true {
          var keyStart = 0
          var keyCount = 0
          if isObject {
            guard byte(i) == UInt8(ascii: "\"") else { throw JSONReader.UnusualObject() }
            keyStart = i &+ 1
            guard try skipString(&i) else { throw JSONReader.UnusualObject() }
            keyCount = i &- 1 &- keyStart
            guard keyCount <= Int(UInt16.max) else { throw JSONReader.UnusualObject() }
            for m in first..<open.count where Int(open[m].keyCount) == keyCount {
              if sameBytes(base + keyStart, base + Int(open[m].keyStart), keyCount) {
                throw JSONReader.UnusualObject()
              }
            }
            skipWhitespace(&i)
            guard byte(i) == UInt8(ascii: ":") else { throw JSONReader.UnusualObject() }
            i &+= 1
            skipWhitespace(&i)
          }
          var member: Member
          switch byte(i) {
          case UInt8(ascii: "{"), UInt8(ascii: "["):
            member = try locate(at: i, depth: depth &+ 1)
            i = Int(member.valueEnd)
          default:
            let valueStart = i
            let flags = try skipScalar(&i)
            member = Member(
              keyStart: 0, valueStart: Int32(truncatingIfNeeded: valueStart),
              valueEnd: Int32(truncatingIfNeeded: i), first: 0, count: 0, keyCount: 0,
              kind: base[valueStart], flags: flags)
          }
          member.keyStart = Int32(truncatingIfNeeded: keyStart)
          member.keyCount = UInt16(truncatingIfNeeded: keyCount)
          open.append(member)
          skipWhitespace(&i)
          let c = byte(i)
          i &+= 1
          if c == close { break }
          guard c == UInt8(ascii: ",") else { throw JSONReader.UnusualObject() }
          skipWhitespace(&i)
        }
      }
      let located = members.count
      members.append(open, first..<open.count)
      open.count = first
      return Member(
        keyStart: 0, valueStart: Int32(truncatingIfNeeded: start),
        valueEnd: Int32(truncatingIfNeeded: i), first: Int32(truncatingIfNeeded: located),
        count: Int32(truncatingIfNeeded: members.count &- located), keyCount: 0, kind: kind,
        flags: [])
    }

    /// Moves `i` past the string, number or literal there; the number is checked when it is
    /// read, `true`, `false` and `null` here. Returns `.plain` for a plain string or integer.
    func skipScalar(_ i: inout Int) throws(JSONReader.UnusualObject) -> Flags {
      let start = i
      switch byte(i) {
      case UInt8(ascii: "\""): return try skipString(&i) ? .plain : []
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

    /// Checks a member no field rule read as the parser would read it: `locate` checked the
    /// structure, keys and literals, so only strings that are not plain and numbers that are not
    /// plain integers are left (an object's or array's members are checked one by one).
    func checkUnread(_ member: Member) throws(JSONReader.UnusualObject) {
      switch member.kind {
      case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "t"), UInt8(ascii: "f"),
        UInt8(ascii: "n"):
        return
      default:
        guard !member.flags.contains(.plain) else { return }
        var parser = parser(at: Int(member.valueStart))
        do {
          _ = try parser.parseValue(depth: 0)
        } catch {
          throw JSONReader.UnusualObject()
        }
        guard parser.index == Int(member.valueEnd) else { throw JSONReader.UnusualObject() }
      }
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
    let members = context.pointee.members.base
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
    context.pointee.members.base[m].flags.insert(.read)
  }

  /// Marks member `m` read with everything inside it, for a value the parser read whole.
  private func markReadWithin(_ m: Int) {
    markRead(m)
    let member = member(m)
    for inner in Int(member.first)..<Int(member.first &+ member.count) { markReadWithin(inner) }
  }

  /// The members (elements) of the array member `m`, which must be an array.
  private func elements(_ m: Int) throws(JSONShapeError) -> Range<Int> {
    let member = member(m)
    guard member.kind == UInt8(ascii: "[") else { throw Self.unread }
    return Int(member.first)..<Int(member.first &+ member.count)
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
    markReadWithin(m)
    return value
  }

  private func readObject(_ m: Int) throws(JSONShapeError) -> BytesFieldReader {
    let member = member(m)
    guard member.kind == UInt8(ascii: "{") else { throw Self.unread }
    markRead(m)
    return BytesFieldReader(
      context, first: Int(member.first), count: Int(member.count), depth: depth &+ 1)
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
    let m = try required(key)
    let elements = try elements(m)
    var out: [String] = []
    out.reserveCapacity(elements.count)
    for e in elements { out.append(try readString(e)) }
    markRead(m)
    return out
  }

  public func object(_ key: String) throws(JSONShapeError) -> BytesFieldReader {
    try readObject(try required(key))
  }

  public func optionalObject(_ key: String) throws(JSONShapeError) -> BytesFieldReader? {
    try present(key).map { (m) throws(JSONShapeError) in try readObject(m) }
  }

  public func objects(_ key: String) throws(JSONShapeError) -> [BytesFieldReader] {
    let m = try required(key)
    let elements = try elements(m)
    var out: [BytesFieldReader] = []
    out.reserveCapacity(elements.count)
    // Elements of an array member: two levels deeper than this object's members.
    let depth = depth &+ 2
    for e in elements {
      let element = member(e)
      guard element.kind == UInt8(ascii: "{") else { throw Self.unread }
      markRead(e)
      out.append(
        BytesFieldReader(
          context, first: Int(element.first), count: Int(element.count), depth: depth))
    }
    markRead(m)
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
  /// How many members and elements (of an object and the objects and arrays inside it)
  /// `readFields` keeps on the stack, and again as many of those being located; more go to the
  /// heap. A temporary allocation of up to 1 KiB (42 of 24 bytes) is always on the stack; a
  /// larger one asks the runtime first.
  static let fieldReaderCapacity = 42

  /// What `readFields` makes of the members its body's rules did not read.
  public enum UnreadMembers: Sendable {
    /// They make the object unusual (`UnusualObject`): for records a program wrote, whose every
    /// member its reader knows.
    case refuse
    /// They are checked as the parser would check them, and otherwise let be: for replies that
    /// carry more than their reader needs. Only a member the parser would refuse makes the
    /// object unusual.
    case check
  }

  /// Reads the object the reader is at with `body`, through a `BytesFieldReader` over its
  /// bytes, and moves past it. Throws `UnusualObject` for an object the field reader does not
  /// read (see `BytesFieldReader`), or when `body` returned without reading every member (unless
  /// `unread` is `.check`): the caller then reads the text as a tree. An error `body` throws is
  /// rethrown.
  public mutating func readFields(
    unread: UnreadMembers = .refuse, _ body: (BytesFieldReader) throws -> Void
  ) throws {
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
      try withUnsafeTemporaryAllocation(
        of: BytesFieldReader.Member.self, capacity: Self.fieldReaderCapacity
      ) { open in
        var context = BytesFieldReader.Context(
          base: base, end: end, depthLimit: depthLimit, strings: strings, members: members,
          open: open)
        defer {
          context.members.release()
          context.open.release()
        }
        return try withUnsafeMutablePointer(to: &context) { context in
          guard context.pointee.byte(start) == UInt8(ascii: "{") else { throw UnusualObject() }
          let object = try context.pointee.locate(at: start, depth: depth)
          try body(
            BytesFieldReader(
              context, first: Int(object.first), count: Int(object.count), depth: depth))
          for m in 0..<context.pointee.members.count
          where !context.pointee.members[m].flags.contains(.read) {
            guard unread == .check else { throw UnusualObject() }
            try context.pointee.checkUnread(context.pointee.members[m])
          }
          return Int(object.valueEnd)
        }
      }
    }
    parser.index = objectEnd
    justOpened = false
  }

  /// What `read` makes of the object that is the whole of `bytes` (blanks around it allowed),
  /// read as `readFields` reads it; nil when the field reader does not read the object, `read`
  /// throws or gives nil, or anything follows the object. The caller then reads a tree.
  public static func readWholeObject<Value>(
    _ bytes: UnsafeRawBufferPointer, maximumDepth: Int, unread: UnreadMembers = .refuse,
    _ read: (BytesFieldReader) throws -> Value?
  ) -> Value? {
    var reader = JSONReader(bytes, maximumDepth: maximumDepth)
    var value: Value?
    do {
      try reader.readFields(unread: unread) { value = try read($0) }
      try reader.finish()
    } catch {
      return nil
    }
    return value
  }
}
