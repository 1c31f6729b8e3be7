import Foundation

/// Turns page bytes into text in the page's declared character set.
enum TextDecoding {
  /// The charset a page declares in its first bytes (`<meta charset="…">` or
  /// `<meta http-equiv="Content-Type" content="…; charset=…">`), lower-cased.
  static func declaredCharset(_ bytes: [UInt8]) -> String? {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return "utf-8" }
    let head = HTMLText.asciiLowercased(String(decoding: bytes.prefix(4096), as: UTF8.self))
    guard let marker = head.range(of: "charset=") else { return nil }
    let value = head[marker.upperBound...].drop { $0 == "\"" || $0 == "'" || $0 == " " }
    let name = value.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    return name.isEmpty ? nil : String(name)
  }

  /// `bytes` as text. UTF-8 (invalid sequences replaced) unless the charset is one of the
  /// Latin-1 family, which is read as windows-1252 as browsers do.
  static func decode(_ bytes: [UInt8], charset: String?) -> String {
    switch charset ?? "utf-8" {
    case "iso-8859-1", "iso8859-1", "latin1", "l1", "iso_8859-1", "windows-1252", "cp1252",
      "us-ascii", "ascii", "x-cp1252":
      var text = ""
      text.unicodeScalars.reserveCapacity(bytes.count)
      for byte in bytes { text.unicodeScalars.append(windows1252(byte)) }
      return text
    default:
      var body = bytes[...]
      if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
      return String(decoding: body, as: UTF8.self)
    }
  }

  /// Windows-1252's characters for 0x80…0x9F; everything else maps to the same code point.
  private static let high: [UInt32] = [
    0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
  ]

  private static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
    if (0x80...0x9F).contains(byte), let scalar = Unicode.Scalar(high[Int(byte - 0x80)]) {
      return scalar
    }
    return Unicode.Scalar(byte)
  }
}
