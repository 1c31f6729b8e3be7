/// Why some bytes are not JSON, and where.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Byte offset of the problem in the input.
  public var offset: Int
  public var reason: String
  public var description: String { "\(reason) at byte \(offset)" }

  @usableFromInline init(offset: Int, reason: String) {
    self.offset = offset
    self.reason = reason
  }
}

/// A strict RFC 8259 parser working directly on bytes.
///
/// Strings must be valid UTF-8; nesting is limited (hostile input cannot exhaust the stack);
/// integers that fit in `Int` stay integers; other numbers become `Double` when it holds them
/// exactly and otherwise keep their text (`JSON.number`); numbers too large for a `Double` are
/// refused, and so is an object with a repeated key (unless `repeatedKeys` says otherwise).
public struct JSONParser: ~Copyable {
  /// Deepest nesting of arrays and objects accepted unless a caller asks for less.
  public static let maximumDepth = 256

  /// What to do with an object that names one key twice.
  public enum RepeatedKeys: Sendable {
    /// Refuse the text: readers disagree on which value wins, so two of them could act on
    /// different values. The default.
    case refuse
    /// Keep the first position and the last value, for replies from servers known to repeat
    /// keys (the SUSI server's skill lists do).
    case keepLast
  }

  /// Parses one JSON value filling all of `bytes` (surrounding whitespace allowed), nested at
  /// most `maximumDepth` deep. Parsing recurses once per level: ask for more than the default
  /// only for text whose depth is known to be bounded (what a program wrote itself).
  public static func parse(
    _ bytes: UnsafeRawBufferPointer, repeatedKeys: RepeatedKeys = .refuse,
    maximumDepth: Int = maximumDepth
  ) throws(JSONParseError) -> JSON {
    var parser = JSONParser(
      bytes.bindMemory(to: UInt8.self), repeatedKeys: repeatedKeys,
      depthLimit: maximumDepth)
    parser.skipWhitespace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    guard parser.index == parser.end else {
      throw parser.error("unexpected text after the JSON value")
    }
    return value
  }

  public static func parse(_ bytes: [UInt8], maximumDepth: Int = maximumDepth)
    throws(JSONParseError) -> JSON
  {
    do {
      return try bytes.withUnsafeBytes { raw in try parse(raw, maximumDepth: maximumDepth) }
    } catch let error as JSONParseError {
      throw error
    } catch {
      fatalError("unreachable")
    }
  }

  public static func parse(_ text: String) throws(JSONParseError) -> JSON {
    var text = text
    do {
      return try text.withUTF8 { utf8 in try parse(UnsafeRawBufferPointer(utf8)) }
    } catch let error as JSONParseError {
      throw error
    } catch {
      fatalError("unreachable")
    }
  }

  @usableFromInline let base: UnsafePointer<UInt8>?
  @usableFromInline let end: Int
  let repeatedKeys: RepeatedKeys
  @usableFromInline let depthLimit: Int
  @usableFromInline var index = 0
  private var scratch: [UInt8] = []

  init(
    _ buffer: UnsafeBufferPointer<UInt8>, repeatedKeys: RepeatedKeys, depthLimit: Int
  ) {
    base = buffer.baseAddress
    end = buffer.count
    self.repeatedKeys = repeatedKeys
    self.depthLimit = depthLimit
  }

  @inlinable @inline(__always) func byte(_ i: Int) -> UInt8 { base.unsafelyUnwrapped[i] }

  @usableFromInline func error(_ reason: String) -> JSONParseError {
    JSONParseError(offset: index, reason: reason)
  }

  /// Moves `index` past the bytes that need nothing done inside a string (printable ASCII other
  /// than `"` and `\`), eight at a time; stops at the first other byte, or where fewer than
  /// eight bytes are left.
  @inlinable @inline(__always)
  mutating func skipPlainStringBytes() {
    guard let base else { return }
    while end &- index >= 8 {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let special = Self.unplainBytes(word)
      guard special == 0 else {
        index &+= special.trailingZeroBitCount &>> 3
        return
      }
      index &+= 8
    }
  }

  /// The high bit of each byte of `word` (in memory order from the lowest) that is a quote, a
  /// backslash, a control character or not ASCII. The lowest such byte is always marked; bytes
  /// above it may be marked when they are not such bytes (a borrow), so only the lowest counts.
  @inlinable @inline(__always)
  public static func unplainBytes(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let quotes = word ^ (ones &* 0x22)
    let backslashes = word ^ (ones &* 0x5C)
    let zeroQuote = (quotes &- ones) & ~quotes
    let zeroBackslash = (backslashes &- ones) & ~backslashes
    let control = word &- (ones &* 0x20)
    return (zeroQuote | zeroBackslash | control | word) & (ones &* 0x80)
  }

  @inlinable @inline(__always)
  mutating func skipWhitespace() {
    // Compact text (what programs write) has none: one comparison and out.
    guard index < end, byte(index) <= 0x20 else { return }
    while index < end {
      switch byte(index) {
      case 0x20, 0x0a, 0x0d, 0x09: index += 1
      default: return
      }
    }
  }

  @usableFromInline mutating func parseValue(depth: Int) throws(JSONParseError) -> JSON {
    guard index < end else { throw error("unexpected end of input") }
    switch byte(index) {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default: throw error("unexpected character")
    }
  }

  @usableFromInline mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
    let count = literal.utf8CodeUnitCount
    guard end - index >= count else { throw error("unexpected end of input") }
    let start = literal.utf8Start
    for i in 0..<count where byte(index + i) != start[i] {
      throw error("invalid literal")
    }
    index += count
  }

  private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSON {
    guard depth <= depthLimit else { throw error("nesting too deep") }
    index += 1  // {
    var members: [JSONObject.Member] = []
    members.reserveCapacity(8)
    skipWhitespace()
    if index < end, byte(index) == UInt8(ascii: "}") {
      index += 1
      return .object(JSONObject(uniqueMembers: members))
    }
    var seen: Set<String>? = nil
    while true {
      skipWhitespace()
      guard index < end, byte(index) == UInt8(ascii: "\"") else {
        throw error("expected a string key")
      }
      let keyOffset = index
      let key = try parseString()
      skipWhitespace()
      guard index < end, byte(index) == UInt8(ascii: ":") else { throw error("expected ':'") }
      index += 1
      skipWhitespace()
      let value = try parseValue(depth: depth)
      // Repeated keys are rare; check cheaply for small objects and with a set for large ones.
      if members.count >= 16 && seen == nil { seen = Set(members.map(\.key)) }
      let repeated: Bool
      if seen != nil {
        repeated = !seen!.insert(key).inserted
      } else {
        repeated = members.contains { $0.key == key }
      }
      if !repeated {
        members.append(JSONObject.Member(key: key, value: value))
      } else if repeatedKeys == .keepLast, let at = members.firstIndex(where: { $0.key == key }) {
        members[at].value = value
      } else {
        throw JSONParseError(offset: keyOffset, reason: "duplicate key \"\(key)\"")
      }
      skipWhitespace()
      guard index < end else { throw error("unexpected end of input in an object") }
      switch byte(index) {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return .object(JSONObject(uniqueMembers: members))
      default: throw error("expected ',' or '}'")
      }
    }
  }

  private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSON {
    guard depth <= depthLimit else { throw error("nesting too deep") }
    index += 1  // [
    var elements: [JSON] = []
    skipWhitespace()
    if index < end, byte(index) == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue(depth: depth))
      skipWhitespace()
      guard index < end else { throw error("unexpected end of input in an array") }
      switch byte(index) {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return .array(elements)
      default: throw error("expected ',' or ']'")
      }
    }
  }

  @usableFromInline mutating func parseString() throws(JSONParseError) -> String {
    index += 1  // opening quote
    let start = index
    // Fast path: no escapes. The scan notes whether every byte is ASCII, which needs no further
    // UTF-8 check.
    var high: UInt8 = 0
    while index < end {
      skipPlainStringBytes()
      guard index < end else { break }
      let c = byte(index)
      if c == UInt8(ascii: "\"") {
        let slice = UnsafeBufferPointer(start: base! + start, count: index - start)
        index += 1
        if high < 0x80 { return String(decoding: slice, as: UTF8.self) }
        return try validated(slice, at: start)
      }
      high |= c
      if c == UInt8(ascii: "\\") { break }
      if c < 0x20 { throw error("control character in a string") }
      index += 1
    }
    guard index < end else {
      throw JSONParseError(offset: start - 1, reason: "unterminated string")
    }
    // Slow path: copy with escapes resolved.
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: UnsafeBufferPointer(start: base! + start, count: index - start))
    while index < end {
      let c = byte(index)
      switch c {
      case UInt8(ascii: "\""):
        index += 1
        let bytes = scratch
        return try bytes.withUnsafeBufferPointer { (b) throws(JSONParseError) -> String in
          try validated(b, at: start)
        }
      case UInt8(ascii: "\\"):
        index += 1
        guard index < end else { break }
        let e = byte(index)
        index += 1
        switch e {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5c)
        case UInt8(ascii: "/"): scratch.append(0x2f)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0c)
        case UInt8(ascii: "n"): scratch.append(0x0a)
        case UInt8(ascii: "r"): scratch.append(0x0d)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"): try appendUnicodeEscape()
        default:
          index -= 1
          throw error("invalid escape")
        }
      default:
        if c < 0x20 { throw error("control character in a string") }
        scratch.append(c)
        index += 1
      }
    }
    throw JSONParseError(offset: start - 1, reason: "unterminated string")
  }

  private func validated(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONParseError)
    -> String
  {
    // ASCII needs no validation; anything else must be well-formed UTF-8.
    var ascii = true
    for b in bytes where b >= 0x80 {
      ascii = false
      break
    }
    if ascii { return String(decoding: bytes, as: UTF8.self) }
    guard let s = String(validating: bytes, as: UTF8.self) else {
      throw JSONParseError(offset: offset, reason: "invalid UTF-8 in a string")
    }
    return s
  }

  private mutating func hex4() throws(JSONParseError) -> UInt32 {
    guard end - index >= 4 else { throw error("truncated \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let c = byte(index)
      let digit: UInt32
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
      default: throw error("invalid \\u escape")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }

  private mutating func appendUnicodeEscape() throws(JSONParseError) {
    var scalar = try hex4()
    if (0xD800...0xDBFF).contains(scalar) {
      guard end - index >= 6, byte(index) == UInt8(ascii: "\\"),
        byte(index + 1) == UInt8(ascii: "u")
      else { throw error("lone surrogate in \\u escape") }
      index += 2
      let low = try hex4()
      guard (0xDC00...0xDFFF).contains(low) else { throw error("lone surrogate in \\u escape") }
      scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
    } else if (0xDC00...0xDFFF).contains(scalar) {
      throw error("lone surrogate in \\u escape")
    }
    guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
    scratch.append(contentsOf: UTF8.encode(unicode)!)
  }

  @usableFromInline mutating func parseNumber() throws(JSONParseError) -> JSON {
    let start = index
    var negative = false
    if byte(index) == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    guard index < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte(index)) else {
      throw error("invalid number")
    }
    var integer = true
    var magnitude: UInt64 = 0
    var overflow = false
    if byte(index) == UInt8(ascii: "0") {
      index += 1
    } else {
      readDigits(into: &magnitude, overflow: &overflow)
    }
    let integerDigits = index - start - (negative ? 1 : 0)
    var fractionDigits = 0
    if index < end, byte(index) == UInt8(ascii: ".") {
      integer = false
      index += 1
      let digits = index
      readDigits(into: &magnitude, overflow: &overflow)
      fractionDigits = index - digits
      guard fractionDigits > 0 else { throw error("invalid number") }
      // At most 15 digits and no exponent: the digits as an integer and the power of ten are
      // both exact doubles, so one division rounds correctly (what `Double(text)` gives), and
      // 15 significant digits always survive writing the value back.
      if integerDigits + fractionDigits <= 15,
        index == end || byte(index) | 0x20 != UInt8(ascii: "e")
      {
        let value = Double(magnitude) / Self.exactPowersOfTen[fractionDigits]
        return .double(negative ? -value : value)
      }
    }
    if index < end, byte(index) | 0x20 == UInt8(ascii: "e") {
      integer = false
      index += 1
      if index < end, byte(index) == UInt8(ascii: "+") || byte(index) == UInt8(ascii: "-") {
        index += 1
      }
      let digits = index
      while index < end, case let c = byte(index), c >= 0x30 && c <= 0x39 { index += 1 }
      guard index > digits else { throw error("invalid number") }
    }
    if integer && !overflow {
      if negative, magnitude <= UInt64(Int64.max) + 1 {
        return .int(magnitude == UInt64(Int64.max) + 1 ? Int.min : -Int(magnitude))
      }
      if !negative, magnitude <= UInt64(Int64.max) { return .int(Int(magnitude)) }
    }
    let text = String(
      decoding: UnsafeBufferPointer(start: base! + start, count: index - start), as: UTF8.self)
    guard let value = Double(text) else {
      throw JSONParseError(offset: start, reason: "invalid number")
    }
    // JSON cannot carry infinity, so a value that would become one could not be written back.
    guard value.isFinite else { throw JSONParseError(offset: start, reason: "number out of range") }
    return Self.holdsExactly(value, literal: text) ? .double(value) : .number(text)
  }

  /// Reads the digits at `index`, each appended to `magnitude` (noting when it overflows).
  private mutating func readDigits(into magnitude: inout UInt64, overflow: inout Bool) {
    while index < end, case let c = byte(index), c >= 0x30 && c <= 0x39 {
      let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
      let (m2, o2) = m1.addingReportingOverflow(UInt64(c - 0x30))
      overflow = overflow || o1 || o2
      magnitude = m2
      index += 1
    }
  }

  /// 10⁰ … 10¹⁵, each exactly a `Double`.
  private static let exactPowersOfTen: [Double] = (0...15).reduce(into: []) { powers, n in
    powers.append(n == 0 ? 1 : powers[n - 1] * 10)
  }

  /// Whether writing `value` back gives the number `literal` says. Up to 15 significant digits
  /// always survive a normal `Double`; longer or tiny literals are compared digit by digit.
  static func holdsExactly(_ value: Double, literal: String) -> Bool {
    let digits = DecimalText(literal)
    if digits.significand.count <= 15 && (value.isNormal || digits.significand.isEmpty) {
      return true
    }
    return DecimalText(value.description) == digits
  }

  /// A decimal number reduced to its significant digits and a power of ten, so that two
  /// spellings of one number (`1.50e2`, `150`) compare equal.
  private struct DecimalText: Equatable {
    var negative = false
    /// ASCII digits without leading or trailing zeros; empty for zero.
    var significand: [UInt8] = []
    var exponent = 0

    init(_ text: String) {
      var pointSeen = false
      var digitsAfterPoint = 0
      var explicitExponent = 0
      var bytes = text.utf8[...]
      if bytes.first == UInt8(ascii: "-") {
        negative = true
        bytes = bytes.dropFirst()
      }
      while let byte = bytes.first {
        if byte == UInt8(ascii: ".") {
          pointSeen = true
        } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
          if !(significand.isEmpty && byte == UInt8(ascii: "0")) { significand.append(byte) }
          if pointSeen { digitsAfterPoint += 1 }
        } else {
          // Kept within a billion either way, so that no literal's exponent (whose digits
          // may run to `Int.min`) can overflow the sums below; a Double holds no number that
          // far out, so the comparison comes out the same.
          let written = Int(String(decoding: bytes.dropFirst(), as: UTF8.self)) ?? 0
          explicitExponent = min(max(written, -1_000_000_000), 1_000_000_000)
          break
        }
        bytes = bytes.dropFirst()
      }
      // Leading zeros were never kept; trailing zeros move into the exponent.
      var trailingZeros = 0
      while significand.last == UInt8(ascii: "0") {
        significand.removeLast()
        trailingZeros += 1
      }
      exponent = explicitExponent - digitsAfterPoint + trailingZeros
      if significand.isEmpty {
        negative = false
        exponent = 0
      }
    }
  }
}
