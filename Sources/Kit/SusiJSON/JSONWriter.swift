/// Writes compact JSON (no spaces, no newlines) into a byte buffer.
///
/// Strings escape only what JSON requires (quote, backslash, control characters); slashes and
/// non-ASCII text are written as they are. Non-finite numbers, which JSON cannot carry, become
/// `null`.
public struct JSONWriter: Sendable {
  public var bytes: [UInt8]

  public init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  @inline(__always) public mutating func raw(_ text: StaticString) {
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  @inline(__always) public mutating func byte(_ b: UInt8) { bytes.append(b) }

  public mutating func int(_ value: Int) {
    if value >= 0 && value < 10 {
      bytes.append(UInt8(truncatingIfNeeded: value) + 0x30)
      return
    }
    var magnitude = value.magnitude
    var digits:
      (
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
      ) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    withUnsafeMutableBytes(of: &digits) { buffer in
      repeat {
        buffer[19 - count] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
        magnitude /= 10
        count += 1
      } while magnitude > 0
      if value < 0 { bytes.append(UInt8(ascii: "-")) }
      bytes.append(contentsOf: buffer[(20 - count)...])
    }
  }

  public mutating func double(_ value: Double) {
    guard value.isFinite else {
      raw("null")
      return
    }
    bytes.append(contentsOf: value.description.utf8)
  }

  public mutating func bool(_ value: Bool) {
    if value { raw("true") } else { raw("false") }
  }

  public mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    var value = value
    value.withUTF8 { utf8 in
      var runStart = 0
      for i in 0..<utf8.count {
        let c = utf8[i]
        guard c < 0x20 || c == 0x22 || c == 0x5c else { continue }
        if runStart < i {
          bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
        }
        runStart = i + 1
        switch c {
        case 0x22: raw("\\\"")
        case 0x5c: raw("\\\\")
        case 0x0a: raw("\\n")
        case 0x0d: raw("\\r")
        case 0x09: raw("\\t")
        case 0x08: raw("\\b")
        case 0x0c: raw("\\f")
        default:
          raw("\\u00")
          let hex: StaticString = "0123456789abcdef"
          bytes.append(hex.utf8Start[Int(c >> 4)])
          bytes.append(hex.utf8Start[Int(c & 0xf)])
        }
      }
      if runStart < utf8.count {
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  public mutating func value(_ json: JSON) {
    switch json {
    case .null: raw("null")
    case .bool(let b): bool(b)
    case .int(let i): int(i)
    case .double(let d): double(d)
    case .number(let text): bytes.append(contentsOf: text.utf8)
    case .string(let s): string(s)
    case .array(let elements):
      bytes.append(UInt8(ascii: "["))
      for (i, element) in elements.enumerated() {
        if i > 0 { bytes.append(UInt8(ascii: ",")) }
        value(element)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let object):
      bytes.append(UInt8(ascii: "{"))
      for (i, member) in object.members.enumerated() {
        if i > 0 { bytes.append(UInt8(ascii: ",")) }
        string(member.key)
        bytes.append(UInt8(ascii: ":"))
        value(member.value)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }
}

extension JSON {
  /// Compact JSON bytes.
  public var compactBytes: [UInt8] {
    var writer = JSONWriter()
    writer.value(self)
    return writer.bytes
  }

  /// Compact JSON text.
  public var compactText: String { String(decoding: compactBytes, as: UTF8.self) }

  /// Indented JSON text in the style of Java's `org.json` `toString(indent)`: `"key": value`,
  /// one member or element per line, `{}` and `[]` when empty.
  public func prettyText(indent: Int = 2) -> String {
    var out = JSONWriter()
    pretty(into: &out, indent: indent, level: 0)
    return String(decoding: out.bytes, as: UTF8.self)
  }

  private func pretty(into out: inout JSONWriter, indent: Int, level: Int) {
    func newline(_ level: Int) {
      out.byte(0x0a)
      for _ in 0..<(indent * level) { out.byte(0x20) }
    }
    switch self {
    case .array(let elements) where !elements.isEmpty:
      out.byte(UInt8(ascii: "["))
      for (i, element) in elements.enumerated() {
        if i > 0 { out.byte(UInt8(ascii: ",")) }
        newline(level + 1)
        element.pretty(into: &out, indent: indent, level: level + 1)
      }
      newline(level)
      out.byte(UInt8(ascii: "]"))
    case .object(let object) where !object.isEmpty:
      out.byte(UInt8(ascii: "{"))
      for (i, member) in object.members.enumerated() {
        if i > 0 { out.byte(UInt8(ascii: ",")) }
        newline(level + 1)
        out.string(member.key)
        out.raw(": ")
        member.value.pretty(into: &out, indent: indent, level: level + 1)
      }
      newline(level)
      out.byte(UInt8(ascii: "}"))
    default:
      out.value(self)
    }
  }
}

extension JSON: CustomStringConvertible {
  public var description: String { compactText }
}
