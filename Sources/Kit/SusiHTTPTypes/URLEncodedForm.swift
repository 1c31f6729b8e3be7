/// `application/x-www-form-urlencoded` and query strings.
public enum URLEncodedForm {
  /// Decodes `a=1&b=x%20y` into ordered pairs. `+` is a space. A pair with bad percent-encoding
  /// is kept with its raw text.
  public static func decode(_ text: String) -> [(String, String)] {
    text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let key = String(parts[0])
      let value = parts.count > 1 ? String(parts[1]) : ""
      return (
        percentDecode(key, plusIsSpace: true) ?? key,
        percentDecode(value, plusIsSpace: true) ?? value
      )
    }
  }

  /// Encodes pairs as a query string, percent-encoding everything but RFC 3986 unreserved
  /// characters (so spaces become `%20` and commas `%2C`).
  public static func encode(_ pairs: [(String, String)]) -> String {
    // Built as bytes in room reserved at once (a query is made per request), then one string.
    var capacity = pairs.count
    for pair in pairs { capacity += 3 * (pair.0.utf8.count + pair.1.utf8.count) }
    var out: [UInt8] = []
    out.reserveCapacity(capacity)
    for (index, pair) in pairs.enumerated() {
      if index > 0 { out.append(UInt8(ascii: "&")) }
      append(pair.0, to: &out)
      out.append(UInt8(ascii: "="))
      append(pair.1, to: &out)
    }
    return String(decoding: out, as: UTF8.self)
  }

  public static func percentEncode(_ text: String) -> String {
    let utf8 = text.utf8
    // Most names and values need no escape: returned as they are.
    if utf8.allSatisfy(isUnreserved) { return text }
    var out: [UInt8] = []
    out.reserveCapacity(utf8.count * 3)
    append(text, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends `text` percent-encoded.
  private static func append(_ text: String, to out: inout [UInt8]) {
    // Most names and values need no escape: copied at once rather than byte by byte.
    if text.utf8.allSatisfy(isUnreserved) {
      out.append(contentsOf: text.utf8)
      return
    }
    for byte in text.utf8 {
      if isUnreserved(byte) {
        out.append(byte)
      } else {
        out.append(UInt8(ascii: "%"))
        out.append(hexDigit(byte >> 4))
        out.append(hexDigit(byte & 0xf))
      }
    }
  }

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "_"), UInt8(ascii: "~"):
      true
    default: false
    }
  }

  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
  }

  /// Decodes `%XX` escapes (and `+` when asked); nil on a malformed escape or invalid UTF-8.
  public static func percentDecode(_ text: String, plusIsSpace: Bool) -> String? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    func hexValue(_ c: UInt8) -> UInt8? {
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
      default: nil
      }
    }
    while let c = iterator.next() {
      if c == UInt8(ascii: "%") {
        guard let h = iterator.next().flatMap(hexValue), let l = iterator.next().flatMap(hexValue)
        else { return nil }
        bytes.append(h << 4 | l)
      } else if c == UInt8(ascii: "+") && plusIsSpace {
        bytes.append(UInt8(ascii: " "))
      } else {
        bytes.append(c)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }
}
