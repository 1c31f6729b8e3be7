/// Writing an HTTP head into bytes, piece by piece, with one copy per piece: appending a
/// string's UTF-8 view goes through the view's generic copy, which costs more than the bytes it
/// moves. The client's requests and the server's responses are written with these.
extension [UInt8] {
  /// Appends a string's UTF-8 bytes at once (a native string's storage).
  package mutating func append(utf8Of text: String) {
    var text = text
    text.withUTF8 { append(contentsOf: $0) }
  }

  package mutating func append(literal text: StaticString) {
    append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Appends `value` (a status or a length, never negative) in decimal, without making a
  /// string of it.
  package mutating func append(decimal value: Int) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
      var start = buffer.count
      var rest = value.magnitude
      repeat {
        start -= 1
        buffer[start] = UInt8(truncatingIfNeeded: rest % 10) + 0x30
        rest /= 10
      } while rest > 0
      append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
    }
  }
}
