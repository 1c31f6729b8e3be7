/// Hex and base64 text forms of byte strings.
public enum ByteEncoding {
  private static let hexDigits = Array("0123456789abcdef".utf8)
  private static let base64Alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// Lower-case hexadecimal.
  public static func hex(_ bytes: [UInt8]) -> String {
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      out.append(hexDigits[Int(byte >> 4)])
      out.append(hexDigits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Standard base64 with padding (RFC 4648 §4).
  public static func base64(_ bytes: [UInt8]) -> String {
    var out = [UInt8]()
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i + 2 < bytes.count {
      let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
      for shift in [18, 12, 6, 0] { out.append(base64Alphabet[Int(n >> UInt32(shift) & 63)]) }
      i += 3
    }
    let rest = bytes.count - i
    if rest > 0 {
      let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
      out.append(base64Alphabet[Int(n >> 18 & 63)])
      out.append(base64Alphabet[Int(n >> 12 & 63)])
      out.append(rest == 2 ? base64Alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
      out.append(UInt8(ascii: "="))
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// URL-safe base64 without padding (RFC 4648 §5): `-` and `_` for `+` and `/`.
  public static func base64URL(_ bytes: [UInt8]) -> String {
    var text = base64(bytes)
    text = String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    while text.hasSuffix("=") { text.removeLast() }
    return text
  }

  /// Decodes standard base64 (padding optional); nil on any character outside the alphabet or
  /// padding anywhere but at the end.
  public static func base64Decode(_ text: String) -> [UInt8]? {
    var values = [UInt8]()
    var padding = 0
    for byte in text.utf8 {
      if byte == UInt8(ascii: "=") {
        padding += 1
        continue
      }
      guard padding == 0 else { return nil }
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(byte - UInt8(ascii: "A"))
      case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(byte - UInt8(ascii: "a") + 26)
      case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(byte - UInt8(ascii: "0") + 52)
      case UInt8(ascii: "+"): values.append(62)
      case UInt8(ascii: "/"): values.append(63)
      default: return nil
      }
    }
    if values.count % 4 == 1 { return nil }
    if padding > 0 && (padding > 2 || (values.count + padding) % 4 != 0) { return nil }
    var out = [UInt8]()
    var i = 0
    while i < values.count {
      let chunk = values[i..<min(i + 4, values.count)]
      var n: UInt32 = 0
      for (j, v) in chunk.enumerated() { n |= UInt32(v) << UInt32(18 - 6 * j) }
      out.append(UInt8(n >> 16 & 0xff))
      if chunk.count > 2 { out.append(UInt8(n >> 8 & 0xff)) }
      if chunk.count > 3 { out.append(UInt8(n & 0xff)) }
      i += 4
    }
    return out
  }

  /// Decodes hexadecimal (either case); nil on odd length or a non-hex character.
  public static func hexDecode(_ text: String) -> [UInt8]? { hexDecode(Array(text.utf8)[...]) }

  /// Decodes hexadecimal digits given as bytes (see `hexDecode(_:)` for text).
  public static func hexDecode(_ digits: ArraySlice<UInt8>) -> [UInt8]? {
    guard digits.count % 2 == 0 else { return nil }
    func value(_ c: UInt8) -> UInt8? {
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
      default: return nil
      }
    }
    var out = [UInt8]()
    out.reserveCapacity(digits.count / 2)
    var i = digits.startIndex
    while i < digits.endIndex {
      guard let hi = value(digits[i]), let lo = value(digits[i + 1]) else { return nil }
      out.append(hi << 4 | lo)
      i += 2
    }
    return out
  }
}
