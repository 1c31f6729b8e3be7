import SusiHTTPServer
import SusiHTTPTypes

/// The parameters of a request, read like Java's `getParameter`: from the query string and
/// from an `application/x-www-form-urlencoded` body, the first value of a name winning.
/// A JSON body is not turned into parameters (as on the real server).
struct RequestParameters: Sendable {
  private(set) var pairs: [(String, String)]

  init(_ pairs: [(String, String)]) { self.pairs = pairs }

  init(request: HTTPRequest) {
    var pairs = URLEncodedForm.decode(request.query ?? "")
    let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
    if contentType.hasPrefix("application/x-www-form-urlencoded"), !request.body.isEmpty {
      pairs += URLEncodedForm.decode(String(decoding: request.body, as: UTF8.self))
    }
    self.pairs = pairs
  }

  /// The first value of `name`, or nil.
  subscript(name: String) -> String? { pairs.first { $0.0 == name }?.1 }

  /// The value of `name`, or `fallback` when absent.
  func string(_ name: String, _ fallback: String) -> String { self[name] ?? fallback }

  /// The value of `name` when present and not empty.
  func nonEmpty(_ name: String) -> String? {
    guard let value = self[name], !value.isEmpty else { return nil }
    return value
  }

  /// The real server's boolean reading: `true` or `1` is true, anything else false.
  func bool(_ name: String) -> Bool {
    guard let value = self[name] else { return false }
    return value == "true" || value == "1"
  }

  /// `Integer.parseInt`: a non-number is a 500, as on the real server; a number outside the
  /// 32-bit range (`1e20`, `99999999999`) is the caller's mistake, a 400.
  func int(_ name: String, _ fallback: Int) throws(APIError) -> Int {
    guard let text = self[name] else { return fallback }
    guard let value = Self.parseJavaInteger(text, bits: 32) else {
      throw Self.isNumber(text) ? .outOfRange(name, text) : .numberFormat(text)
    }
    return value
  }

  /// `Long.parseLong`, with the same 500 and 400 as `int`.
  func long(_ name: String, _ fallback: Int) throws(APIError) -> Int {
    guard let text = self[name] else { return fallback }
    guard let value = Self.parseJavaInteger(text, bits: 64) else {
      throw Self.isNumber(text) ? .outOfRange(name, text) : .numberFormat(text)
    }
    return value
  }

  /// `Double.parseDouble` (surrounding spaces allowed); a number too large to be finite
  /// (`1e400`) is a 400.
  func double(_ name: String, _ fallback: Double) throws(APIError) -> Double {
    guard let text = self[name] else { return fallback }
    guard Self.isNumber(text), let value = Double(text.trimmed) else {
      throw .numberFormat(text)
    }
    guard value.isFinite else { throw .outOfRange(name, text) }
    return value
  }

  /// Decimal number syntax (`-1.5e3`), unlike Swift's `Double(_:)`, which also reads `nan`,
  /// `inf` and hexadecimal.
  static func isNumber(_ text: String) -> Bool {
    let trimmed = text.trimmed
    return trimmed.contains(where: \.isASCIIDigit)
      && trimmed.allSatisfy { $0.isASCIIDigit || "+-.eE".contains($0) } && Double(trimmed) != nil
  }

  /// Java's integer syntax: an optional sign and ASCII digits, within the type's range.
  static func parseJavaInteger(_ text: String, bits: Int) -> Int? {
    var digits = Substring(text)
    var negative = false
    if let first = digits.first, first == "-" || first == "+" {
      negative = first == "-"
      digits = digits.dropFirst()
    }
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
      let magnitude = Int(digits)
    else { return nil }
    let value = negative ? -magnitude : magnitude
    if bits == 32 && (value < Int(Int32.min) || value > Int(Int32.max)) { return nil }
    return value
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
