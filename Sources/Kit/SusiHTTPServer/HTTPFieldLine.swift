/// One `name: value` line of a header or trailer section, checked against RFC 9112 §5.
struct HTTPFieldLine {
  /// The field name, as sent.
  var name: UnsafeBufferPointer<UInt8>
  /// The field value without leading and trailing whitespace.
  var value: UnsafeBufferPointer<UInt8>

  /// Splits and checks `line` (without its CRLF), or says why it must be rejected.
  static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result<HTTPFieldLine, HTTPRejection> {
    guard let first = line.first else { return .failure(.badRequest("empty header line")) }
    if first == HTTPSyntax.space || first == HTTPSyntax.tab {
      return .failure(.badRequest("header line folding (obs-fold) is not allowed"))
    }
    guard let colon = line.firstIndex(of: HTTPSyntax.colon) else {
      return .failure(.badRequest("header line without a colon"))
    }
    if colon == 0 { return .failure(.badRequest("header field with an empty name")) }
    for index in 0..<colon {
      let byte = line[index]
      if byte == HTTPSyntax.space || byte == HTTPSyntax.tab {
        return .failure(.badRequest("whitespace before the colon of a header field"))
      }
      if !HTTPSyntax.isTokenByte(byte) {
        return .failure(.badRequest("invalid character in a header field name"))
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
      return .failure(.badRequest("control character in a header field value"))
    }
    return .success(
      HTTPFieldLine(
        name: UnsafeBufferPointer(rebasing: line[0..<colon]),
        value: UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd])))
  }
}

extension UnsafeBufferPointer<UInt8> {
  /// The index of the first line feed at or after `from`, or nil.
  func indexOfLineFeed(from: Int) -> Int? {
    guard from < count, let base = baseAddress else { return nil }
    var index = from
    while index < count {
      if base[index] == HTTPSyntax.lf { return index }
      index += 1
    }
    return nil
  }

  /// The bytes as a String; invalid UTF-8 (allowed `obs-text`) becomes U+FFFD.
  var decodedString: String { String(decoding: self, as: UTF8.self) }
}
