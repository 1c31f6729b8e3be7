/// Byte classes from RFC 9110 §5.6 and RFC 3986 that the server's request parser and the
/// client's response parser check against.
package enum HTTPSyntax {
  package static let cr = UInt8(ascii: "\r")
  package static let lf = UInt8(ascii: "\n")
  package static let space = UInt8(ascii: " ")
  package static let tab = UInt8(ascii: "\t")
  package static let colon = UInt8(ascii: ":")

  /// `tchar`: the characters of a token (method, field name, transfer coding).
  @inline(__always)
  package static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
      UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
      UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
      UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
      return true
    default:
      return false
    }
  }

  /// `field-vchar` plus the spaces allowed inside a field value: anything but control
  /// characters (NUL, CR, LF, DEL, …). Bytes from 0x80 up (`obs-text`) are allowed.
  @inline(__always)
  package static func isFieldValueByte(_ byte: UInt8) -> Bool {
    byte == tab || (byte >= 0x20 && byte != 0x7F)
  }

  /// Visible ASCII: what a request-target may consist of.
  @inline(__always)
  package static func isTargetByte(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

  /// What `Host` may hold: `uri-host [ ":" port ]`, including IP literals and percent escapes.
  package static func isHostByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
      UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
      UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
      UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: "%"),
      UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
      return true
    default:
      return false
    }
  }

  /// The value of a hexadecimal digit, or nil.
  @inline(__always)
  package static func hexValue(_ byte: UInt8) -> Int? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  /// Calls `body` with each element of a comma-separated list (RFC 9110 §5.6.1) in order,
  /// without the spaces and tabs around it; empty elements are skipped.
  package static func forEachListElement(
    _ value: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    var index = 0
    while index < value.count {
      var end = index
      while end < value.count && value[end] != UInt8(ascii: ",") { end += 1 }
      var first = index
      var last = end
      while first < last && (value[first] == space || value[first] == tab) { first += 1 }
      while last > first && (value[last - 1] == space || value[last - 1] == tab) { last -= 1 }
      if first < last { body(UnsafeBufferPointer(rebasing: value[first..<last])) }
      index = end + 1
    }
  }

  /// Whether `bytes` equals the lowercase ASCII `name`, ignoring case.
  package static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString)
    -> Bool
  {
    guard bytes.count == name.utf8CodeUnitCount else { return false }
    let expected = name.utf8Start
    for index in 0..<bytes.count {
      var byte = bytes[index]
      if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte |= 0x20 }
      if byte != expected[index] { return false }
    }
    return true
  }
}
