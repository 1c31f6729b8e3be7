import Glibc

/// Why a header or trailer line was refused: a reason a person can act on.
package struct HTTPFieldLineError: Error, Equatable, Sendable {
  package var reason: String
  package init(_ reason: String) { self.reason = reason }
}

/// One `name: value` line of a header or trailer section, checked against RFC 9112 §5: shared by
/// the server's request parser and the client's response parser.
package struct HTTPFieldLine {
  /// The field name, as sent.
  package var name: UnsafeBufferPointer<UInt8>
  /// The field value without leading and trailing whitespace.
  package var value: UnsafeBufferPointer<UInt8>

  /// Splits and checks `line` (without its CRLF), or says why it must be rejected.
  package static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result<
    HTTPFieldLine, HTTPFieldLineError
  > {
    guard let first = line.first else { return .failure(HTTPFieldLineError("empty header line")) }
    if first == HTTPSyntax.space || first == HTTPSyntax.tab {
      return .failure(HTTPFieldLineError("header line folding (obs-fold) is not allowed"))
    }
    guard let colon = line.firstIndex(of: HTTPSyntax.colon) else {
      return .failure(HTTPFieldLineError("header line without a colon"))
    }
    if colon == 0 { return .failure(HTTPFieldLineError("header field with an empty name")) }
    for index in 0..<colon {
      let byte = line[index]
      if byte == HTTPSyntax.space || byte == HTTPSyntax.tab {
        return .failure(HTTPFieldLineError("whitespace before the colon of a header field"))
      }
      if !HTTPSyntax.isTokenByte(byte) {
        return .failure(HTTPFieldLineError("invalid character in a header field name"))
      }
    }
    var valueStart = colon + 1
    var valueEnd = line.count
    while valueStart < valueEnd,
      line[valueStart] == HTTPSyntax.space || line[valueStart] == HTTPSyntax.tab
    {
      valueStart += 1
    }
    while valueEnd > valueStart,
      line[valueEnd - 1] == HTTPSyntax.space || line[valueEnd - 1] == HTTPSyntax.tab
    {
      valueEnd -= 1
    }
    for index in valueStart..<valueEnd where !HTTPSyntax.isFieldValueByte(line[index]) {
      return .failure(HTTPFieldLineError("control character in a header field value"))
    }
    return .success(
      HTTPFieldLine(
        name: UnsafeBufferPointer(rebasing: line[0..<colon]),
        value: UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd])))
  }
}

extension UnsafeBufferPointer<UInt8> {
  // Shared by the request and response parsers.
  /// The index of the first line feed at or after `from`, or nil.
  package func indexOfLineFeed(from: Int) -> Int? {
    guard from >= 0, from < count, let base = baseAddress else { return nil }
    // `memchr` looks at many bytes at once; a head's lines are a few dozen bytes each.
    guard let found = memchr(base + from, Int32(HTTPSyntax.lf), count - from) else { return nil }
    return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
  }

  /// The bytes as a String; invalid UTF-8 (allowed `obs-text`) becomes U+FFFD.
  package var decodedString: String { String(decoding: self, as: UTF8.self) }
}
