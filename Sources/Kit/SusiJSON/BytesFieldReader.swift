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
    /// Whether a field rule read the value (and so checked it).
    var read: Bool
  }

  /// What the readers of one object and the objects inside it share.
  struct Context {
    let base: UnsafePointer<UInt8>
    let end: Int
    let depthLimit: Int
    let strings: JSONStringCache?
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
      base: UnsafePointer<UInt8>, end: Int, depthLimit: Int, strings: JSONStringCache?,
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
        i &+= 1
        let keyStart = i
        // Printable ASCII other than `\`: what field names are.
        while i < end, case let c = base[i], c != UInt8(ascii: "\"") {
          guard c >= 0x20, c < 0x7F, c != UInt8(ascii: "\\") else {
            throw JSONReader.UnusualObject()
          }
          i &+= 1
        }
        guard i < end, i &- keyStart <= Int(UInt16.max) else { throw JSONReader.UnusualObject() }
        let keyCount = i &- keyStart
        i &+= 1
        skipWhitespace(&i)
        guard byte(i) == UInt8(ascii: ":") else { throw JSONReader.UnusualObject() }
        i &+= 1
        skipWhitespace(&i)
        let valueStart = i
        let kind = byte(i)
        try skipValue(&i)
        if kind == UInt8(ascii: "n") {
          // Checked here, so that reading a null needs no parse.
          guard i &- valueStart == 4, base[valueStart &+ 1] == UInt8(ascii: "u"),
            base[valueStart &+ 2] == UInt8(ascii: "l"), base[valueStart &+ 3] == UInt8(ascii: "l")
          else { throw JSONReader.UnusualObject() }
        }
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
          kind: kind, read: false)
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
    /// between them); the value is checked when it is read.
    func skipValue(_ i: inout Int) throws(JSONReader.UnusualObject) {
      switch byte(i) {
      case UInt8(ascii: "\""): try skipString(&i)
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        var level = 0
        while i < end {
          switch base[i] {
          case UInt8(ascii: "\""):
            try skipString(&i)
            continue
          case UInt8(ascii: "{"), UInt8(ascii: "["): level &+= 1
          case UInt8(ascii: "}"), UInt8(ascii: "]"):
            level &-= 1
            if level == 0 {
              i &+= 1
              return
            }
          default: break
          }
          i &+= 1
        }
        throw JSONReader.UnusualObject()
      default:
        let start = i
        while i < end {
          switch base[i] {
          case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0a, 0x0d, 0x09:
            guard i > start else { throw JSONReader.UnusualObject() }
            return
          default: i &+= 1
          }
        }
        throw JSONReader.UnusualObject()
      }
    }

    /// Moves `i` (at a `"`) past the string's closing quote.
    func skipString(_ i: inout Int) throws(JSONReader.UnusualObject) {
      i &+= 1
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
          return
        case UInt8(ascii: "\\"): i &+= 2
        default: i &+= 1
        }
      }
      while i < end {
        switch base[i] {
        case UInt8(ascii: "\""):
          i &+= 1
          return
        case UInt8(ascii: "\\"): i &+= 2
        default: i &+= 1
        }
      }
      throw JSONReader.UnusualObject()
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

  /// Reads the value of member `m` with `read`, from a reader placed at it, and marks it read;
  /// throws when `read` fails or does not end where the value does.
  private func read<T>(_ m: Int, _ read: (inout JSONReader) throws(JSONParseError) -> T?)
    throws(JSONShapeError) -> T
  {
    let member = context.pointee.members[m]
    var reader = JSONReader(
      context.pointee.base, end: context.pointee.end, at: Int(member.valueStart), depth: depth,
      depthLimit: context.pointee.depthLimit, strings: context.pointee.strings)
    let value: T?
    do {
      value = try read(&reader)
    } catch {
      throw Self.unread
    }
    guard let value, reader.offset == Int(member.valueEnd) else { throw Self.unread }
    context.pointee.members[m].read = true
    return value
  }

  /// The member `key` when it is present and not null (a null one is then read); nil otherwise.
  @inline(__always) private func present(_ key: String) -> Int? {
    guard let m = find(key) else { return nil }
    guard context.pointee.members[m].kind != UInt8(ascii: "n") else {
      context.pointee.members[m].read = true
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
    try read(m) { (r) throws(JSONParseError) in try r.kind() == .string ? try r.string() : nil }
  }

  private func readNumber(_ m: Int) throws(JSONShapeError) -> JSON {
    try read(m) { (r) throws(JSONParseError) in try r.kind() == .number ? try r.number() : nil }
  }

  private func readBool(_ m: Int) throws(JSONShapeError) -> Bool {
    try read(m) { (r) throws(JSONParseError) in try r.kind() == .bool ? try r.bool() : nil }
  }

  private func readValue(_ m: Int) throws(JSONShapeError) -> JSON {
    try read(m) { (r) throws(JSONParseError) in try r.value() }
  }

  private func readObject(_ m: Int) throws(JSONShapeError) -> BytesFieldReader {
    let member = context.pointee.members[m]
    guard member.kind == UInt8(ascii: "{") else { throw Self.unread }
    let object: (first: Int, count: Int, end: Int)
    do {
      object = try context.pointee.locate(objectAt: Int(member.valueStart), depth: depth &+ 1)
    } catch {
      throw Self.unread
    }
    guard object.end == Int(member.valueEnd) else { throw Self.unread }
    context.pointee.members[m].read = true
    return BytesFieldReader(context, first: object.first, count: object.count, depth: depth &+ 1)
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
    guard let m = present(key) else { return nil }
    return try readString(m)
  }

  public func int(_ key: String) throws(JSONShapeError) -> Int {
    guard let i = try readNumber(try required(key)).int else { throw Self.unread }
    return i
  }

  public func optionalInt(_ key: String) throws(JSONShapeError) -> Int? {
    guard let m = present(key) else { return nil }
    guard let i = try readNumber(m).int else { throw Self.unread }
    return i
  }

  public func double(_ key: String) throws(JSONShapeError) -> Double {
    guard let d = try readNumber(try required(key)).double else { throw Self.unread }
    return d
  }

  public func optionalDouble(_ key: String) throws(JSONShapeError) -> Double? {
    guard let m = present(key) else { return nil }
    guard let d = try readNumber(m).double else { throw Self.unread }
    return d
  }

  public func bool(_ key: String) throws(JSONShapeError) -> Bool {
    try readBool(try required(key))
  }

  public func optionalBool(_ key: String) throws(JSONShapeError) -> Bool? {
    guard let m = present(key) else { return nil }
    return try readBool(m)
  }

  public func array(_ key: String) throws(JSONShapeError) -> [JSON] {
    guard case .array(let a) = try readValue(try required(key)) else { throw Self.unread }
    return a
  }

  public func optionalArray(_ key: String) throws(JSONShapeError) -> [JSON]? {
    guard let m = present(key) else { return nil }
    guard case .array(let a) = try readValue(m) else { throw Self.unread }
    return a
  }

  public func strings(_ key: String) throws(JSONShapeError) -> [String] {
    try read(try required(key)) { (r) throws(JSONParseError) -> [String]? in
      guard try r.kind() == .array else { return nil }
      var out: [String] = []
      try r.enterArray()
      while try r.nextElement() {
        guard try r.kind() == .string else { return nil }
        out.append(try r.string())
      }
      return out
    }
  }

  public func object(_ key: String) throws(JSONShapeError) -> BytesFieldReader {
    try readObject(try required(key))
  }

  public func optionalObject(_ key: String) throws(JSONShapeError) -> BytesFieldReader? {
    guard let m = present(key) else { return nil }
    return try readObject(m)
  }

  public func objects(_ key: String) throws(JSONShapeError) -> [BytesFieldReader] {
    let m = try required(key)
    let member = context.pointee.members[m]
    guard member.kind == UInt8(ascii: "["), depth < context.pointee.depthLimit else {
      throw Self.unread
    }
    var out: [BytesFieldReader] = []
    var i = Int(member.valueStart) &+ 1
    context.pointee.skipWhitespace(&i)
    if context.pointee.byte(i) == UInt8(ascii: "]") {
      i &+= 1
    } else {
      while true {
        let object: (first: Int, count: Int, end: Int)
        do {
          object = try context.pointee.locate(objectAt: i, depth: depth &+ 2)
        } catch {
          throw Self.unread
        }
        out.append(
          BytesFieldReader(context, first: object.first, count: object.count, depth: depth &+ 2))
        i = object.end
        context.pointee.skipWhitespace(&i)
        let c = context.pointee.byte(i)
        i &+= 1
        if c == UInt8(ascii: "]") { break }
        guard c == UInt8(ascii: ",") else { throw Self.unread }
        context.pointee.skipWhitespace(&i)
      }
    }
    guard i == Int(member.valueEnd) else { throw Self.unread }
    context.pointee.members[m].read = true
    return out
  }

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
    let member = context.pointee.members[m]
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
  public mutating func readFields<T>(_ body: (BytesFieldReader) throws -> T) throws -> T {
    parser.skipWhitespace()
    guard let base = parser.base, parser.end <= Int(Int32.max) else { throw UnusualObject() }
    let start = parser.index
    let (value, end) = try withUnsafeTemporaryAllocation(
      of: BytesFieldReader.Member.self, capacity: Self.fieldReaderCapacity
    ) { members in
      var context = BytesFieldReader.Context(
        base: base, end: parser.end, depthLimit: parser.depthLimit, strings: strings,
        members: members)
      defer { if context.ownsMembers { context.members.deallocate() } }
      return try withUnsafeMutablePointer(to: &context) { context in
        let object = try context.pointee.locate(objectAt: start, depth: depth &+ 1)
        let value = try body(
          BytesFieldReader(context, first: object.first, count: object.count, depth: depth &+ 1))
        for m in 0..<context.pointee.used where !context.pointee.members[m].read {
          throw UnusualObject()
        }
        return (value, object.end)
      }
    }
    parser.index = end
    justOpened = false
    return value
  }

  /// A reader at offset `index` of the `end` bytes at `base`, inside `depth` objects and arrays.
  init(
    _ base: UnsafePointer<UInt8>, end: Int, at index: Int, depth: Int, depthLimit: Int,
    strings: JSONStringCache?
  ) {
    parser = JSONParser(
      UnsafeBufferPointer(start: base, count: end), repeatedKeys: .refuse, depthLimit: depthLimit)
    parser.index = index
    self.strings = strings
    self.depth = depth
  }
}
