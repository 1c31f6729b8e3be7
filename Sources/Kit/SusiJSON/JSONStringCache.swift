/// Strings a `JSONReader` made before, handed back when the same bytes come again.
///
/// Text read record after record repeats itself (the same answer, skill path and language in
/// thousands of log lines): a string found here costs a comparison of its bytes instead of an
/// allocation, a copy and a UTF-8 check, and the values that keep it share one buffer.
///
/// Only strings too long to be stored inside a `String` value (16 bytes or more) and no longer
/// than `maximumLength` are kept, each in one of a fixed number of places chosen by its bytes (a
/// newer string takes the place of an older one), so the cache never holds more than a few
/// kilobytes. One cache serves one reader at a time.
public final class JSONStringCache {
  /// The longest string kept, in UTF-8 bytes.
  public static let maximumLength = 256
  /// How many strings are kept at most.
  static let placeCount = 64

  // One reader at a time uses a cache: no access to `places` overlaps another, so it is not
  // checked at run time (a check per string read).
  @exclusivity(unchecked) @usableFromInline var places: [String?]

  public init() {
    places = Array(repeating: nil, count: Self.placeCount)
  }

  /// The string of `bytes` (valid UTF-8 without escapes): the one kept for the same bytes, or a
  /// new one, then kept.
  @usableFromInline func string(_ bytes: UnsafeRawBufferPointer) -> String {
    let count = bytes.count
    guard count >= 16, count <= Self.maximumLength, let base = bytes.baseAddress else {
      return String(decoding: bytes, as: UTF8.self)
    }
    // The length and the first and last eight bytes pick the place.
    let first = base.loadUnaligned(as: UInt64.self)
    let last = base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
    let mixed = (first ^ (last &<< 1) ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15
    let place = Int(truncatingIfNeeded: mixed &>> 58)
    if let kept = places[place], Self.has(kept, bytes) { return kept }
    let made = String(decoding: bytes, as: UTF8.self)
    places[place] = made
    return made
  }

  /// Whether `string`'s UTF-8 is exactly `bytes`.
  private static func has(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
    let same = string.utf8.withContiguousStorageIfAvailable { utf8 in
      utf8.count == bytes.count
        && sameBytes(UnsafeRawPointer(utf8.baseAddress!), bytes.baseAddress!, bytes.count)
    }
    return same ?? false
  }
}
