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
    // Written straight into the string's storage, reserved at once for the worst case (a query
    // is made per request).
    var capacity = 2 * pairs.count  // an `=` each, an `&` between
    for pair in pairs { capacity += 3 * (pair.0.utf8.count + pair.1.utf8.count) }
    return String(unsafeUninitializedCapacity: capacity) { out in
      var count = 0
      for (index, pair) in pairs.enumerated() {
        if index > 0 {
          out[count] = UInt8(ascii: "&")
          count += 1
        }
        count = write(pair.0, into: out, at: count)
        out[count] = UInt8(ascii: "=")
        count = write(pair.1, into: out, at: count + 1)
      }
      return count
    }
  }

  public static func percentEncode(_ text: String) -> String {
    let utf8 = text.utf8
    // Most names and values need no escape: returned as they are.
    if utf8.allSatisfy(isUnreserved) { return text }
    return String(unsafeUninitializedCapacity: utf8.count * 3) { write(text, into: $0, at: 0) }
  }

  /// Writes `text` percent-encoded into `out` from `start` (room for three bytes a byte of
  /// `text` reserved by the caller); returns where it ended.
  private static func write(
    _ text: String, into out: UnsafeMutableBufferPointer<UInt8>, at start: Int
  )
    -> Int
  {
    var count = start
    for byte in text.utf8 {
      if isUnreserved(byte) {
        out[count] = byte
        count += 1
      } else {
        out[count] = UInt8(ascii: "%")
        out[count + 1] = hexDigit(byte >> 4)
        out[count + 2] = hexDigit(byte & 0xf)
        count += 3
      }
    }
    return count
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
