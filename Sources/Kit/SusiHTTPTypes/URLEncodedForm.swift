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
    pairs.map { "\(percentEncode($0.0))=\(percentEncode($0.1))" }.joined(separator: "&")
  }

  public static func percentEncode(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        out.unicodeScalars.append("%")
        out.unicodeScalars.append(hex[Int(byte >> 4)])
        out.unicodeScalars.append(hex[Int(byte & 0xf)])
      }
    }
    return out
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
