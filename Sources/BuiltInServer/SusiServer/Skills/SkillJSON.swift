import SusiJSON

/// The JSON of a skill's `!console:` rule, read as leniently as the real server's reader
/// (`org.json`'s `JSONTokener` with `new JSONObject(tokener)`) reads it, so that every rule it
/// ran runs here too. Only skill files are read this way; everything else is strict JSON.
///
/// Accepted beyond strict JSON:
/// - strings in single quotes, and the escape `\'`;
/// - unquoted keys and values: text up to one of `,:]}/\"[{;=#` or a control character,
///   trimmed, read as `true`, `false` or `null` (in any case), a number, or else a string
///   (`"query":$1$` is the string `$1$`);
/// - `;` between the members of an object, and a `,` or `;` before its `}`;
/// - a `,` before an array's `]`, and an empty element (`[1,,2]`) as `null`;
/// - anything after the object's closing `}` (it is not read);
/// - a member whose value is `null` is left out.
///
/// Refused, as the real server refuses them: a repeated key, a line break inside a string, an
/// unknown escape, a missing value, and anything that is not an object at the top.
enum SkillJSON {
  struct Failure: Error, CustomStringConvertible {
    var message: String
    var offset: Int
    var description: String { "\(message) at byte \(offset)" }
  }

  /// How deep objects and arrays may nest.
  static let maximumDepth = 64

  /// The object at the start of `text`.
  static func object(_ text: String) throws(Failure) -> JSONObject {
    var reader = Reader(bytes: Array(text.utf8))
    guard reader.nextClean() == UInt8(ascii: "{") else {
      throw Failure(message: "a rule must begin with '{'", offset: reader.position)
    }
    reader.back()
    return try reader.object(depth: 0)
  }

  private struct Reader {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func fail(_ message: String) -> Failure { Failure(message: message, offset: position) }

    /// The next byte, or 0 at the end.
    mutating func next() -> UInt8 {
      guard position < bytes.count else {
        position = bytes.count + 1
        return 0
      }
      defer { position += 1 }
      return bytes[position]
    }

    mutating func back() { if position > 0 { position -= 1 } }

    /// The next byte that is not white space or a control character, or 0 at the end.
    mutating func nextClean() -> UInt8 {
      while true {
        let byte = next()
        if byte == 0 || byte > 0x20 { return byte }
      }
    }

    mutating func value(depth: Int) throws(Failure) -> JSON {
      let byte = nextClean()
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "'"): return .string(try string(quote: byte))
      case UInt8(ascii: "{"):
        back()
        return .object(try object(depth: depth + 1))
      case UInt8(ascii: "["):
        back()
        return .array(try array(depth: depth + 1))
      default: break
      }
      var word: [UInt8] = []
      var current = byte
      while current >= 0x20, !Self.stops.contains(current) {
        word.append(current)
        current = next()
      }
      if position <= bytes.count { back() }
      let text = String(decoding: word, as: UTF8.self).trimmed
      guard !text.isEmpty else { throw fail("missing value") }
      return Self.bareValue(text)
    }

    static let stops = Array(",:]}/\\\"[{;=#".utf8)

    /// `JSONObject.stringToValue`: a keyword, a number, or the text itself.
    static func bareValue(_ text: String) -> JSON {
      switch text.lowercased() {
      case "true": return .bool(true)
      case "false": return .bool(false)
      case "null": return .null
      default: break
      }
      guard let first = text.utf8.first, first == UInt8(ascii: "-") || (0x30...0x39).contains(first)
      else { return .string(text) }
      let decimal = text.contains { ".eE".contains($0) } || text == "-0"
      if decimal {
        if let value = Double(text), value.isFinite,
          text.utf8.allSatisfy({ (0x30...0x39).contains($0) || "+-.eE".utf8.contains($0) })
        {
          return .double(value)
        }
        return .string(text)
      }
      if let value = Int(text), String(value) == text { return .int(value) }
      return .string(text)
    }

    mutating func string(quote: UInt8) throws(Failure) -> String {
      var out: [UInt8] = []
      while true {
        let byte = next()
        switch byte {
        case 0, 0x0A, 0x0D: throw fail("unterminated string")
        case UInt8(ascii: "\\"):
          let escaped = next()
          switch escaped {
          case UInt8(ascii: "b"): out.append(0x08)
          case UInt8(ascii: "t"): out.append(0x09)
          case UInt8(ascii: "n"): out.append(0x0A)
          case UInt8(ascii: "f"): out.append(0x0C)
          case UInt8(ascii: "r"): out.append(0x0D)
          case UInt8(ascii: "u"):
            guard position + 4 <= bytes.count,
              let code = UInt32(
                String(decoding: bytes[position..<(position + 4)], as: UTF8.self), radix: 16)
            else { throw fail("illegal escape") }
            position += 4
            // A lone surrogate (half of a pair Java would join) becomes U+FFFD.
            var scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
            if (0xD800...0xDBFF).contains(code), position + 6 <= bytes.count,
              bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u"),
              let low = UInt32(
                String(decoding: bytes[(position + 2)..<(position + 6)], as: UTF8.self), radix: 16),
              (0xDC00...0xDFFF).contains(low),
              let joined = Unicode.Scalar(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
            {
              scalar = joined
              position += 6
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
          case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "/"):
            out.append(escaped)
          default: throw fail("illegal escape")
          }
        default:
          if byte == quote { return String(decoding: out, as: UTF8.self) }
          out.append(byte)
        }
      }
    }

    mutating func object(depth: Int) throws(Failure) -> JSONObject {
      guard depth <= SkillJSON.maximumDepth else { throw fail("nested too deeply") }
      guard nextClean() == UInt8(ascii: "{") else { throw fail("an object must begin with '{'") }
      var members: [(String, JSON)] = []
      var keys = Set<String>()
      while true {
        switch nextClean() {
        case 0: throw fail("an object must end with '}'")
        case UInt8(ascii: "}"): return JSONObject(members)
        default: back()
        }
        let key: String
        switch try value(depth: depth) {
        case .string(let text): key = text
        case .int(let number): key = String(number)
        case .double(let number): key = String(number)
        case .bool(let flag): key = String(flag)
        case .null: key = "null"
        default: throw fail("a key must be a string")
        }
        guard nextClean() == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
        guard keys.insert(key).inserted else { throw fail("duplicate key \"\(key)\"") }
        let member = try value(depth: depth)
        if member != .null { members.append((key, member)) }
        switch nextClean() {
        case UInt8(ascii: ";"), UInt8(ascii: ","):
          if nextClean() == UInt8(ascii: "}") { return JSONObject(members) }
          back()
        case UInt8(ascii: "}"): return JSONObject(members)
        default: throw fail("expected ',' or '}'")
        }
      }
    }

    mutating func array(depth: Int) throws(Failure) -> [JSON] {
      guard depth <= SkillJSON.maximumDepth else { throw fail("nested too deeply") }
      guard nextClean() == UInt8(ascii: "[") else { throw fail("an array must begin with '['") }
      var elements: [JSON] = []
      var byte = nextClean()
      if byte == 0 { throw fail("expected ',' or ']'") }
      if byte == UInt8(ascii: "]") { return elements }
      back()
      while true {
        if nextClean() == UInt8(ascii: ",") {
          back()
          elements.append(.null)
        } else {
          back()
          elements.append(try value(depth: depth))
        }
        switch nextClean() {
        case UInt8(ascii: ","):
          byte = nextClean()
          if byte == 0 { throw fail("expected ',' or ']'") }
          if byte == UInt8(ascii: "]") { return elements }
          back()
        case UInt8(ascii: "]"): return elements
        default: throw fail("expected ',' or ']'")
        }
      }
    }
  }
}
