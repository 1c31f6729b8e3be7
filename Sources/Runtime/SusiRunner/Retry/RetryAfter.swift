import SusiCore
import SusiHTTPTypes

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): a number of seconds, or an HTTP-date.
enum RetryAfter {
  /// The wait the header asks for, in milliseconds from `now` (never negative), or nil when
  /// the value is neither form.
  static func milliseconds(_ value: String, now: Timestamp) -> Int64? {
    let text = value.trimmingSpaces()
    if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
      guard text.utf8.count <= 12, let seconds = Int64(text) else { return Int64.max }
      return seconds * 1000
    }
    guard let date = httpDate(text) else { return nil }
    return max(0, date.milliseconds - now.milliseconds)
  }

  private static let months = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
  ]

  /// Parses the three HTTP-date forms: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the
  /// obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
  /// (`Sun Nov  6 08:49:37 1994`).
  static func httpDate(_ text: String) -> Timestamp? {
    let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    var day: Int?
    var month: Int?
    var year: Int?
    var time: String?
    switch words.count {
    case 6 where words[5] == "GMT":  // IMF-fixdate
      day = Int(words[1])
      month = monthNumber(words[2])
      year = Int(words[3])
      time = words[4]
    case 4 where words[3] == "GMT":  // RFC 850
      let parts = words[1].split(separator: "-").map(String.init)
      guard parts.count == 3, let shortYear = Int(parts[2]) else { return nil }
      day = Int(parts[0])
      month = monthNumber(parts[1])
      year =
        parts[2].count == 4 ? shortYear : (shortYear < 70 ? 2000 + shortYear : 1900 + shortYear)
      time = words[2]
    case 5:  // asctime
      month = monthNumber(words[1])
      day = Int(words[2])
      time = words[3]
      year = Int(words[4])
    default:
      return nil
    }
    guard let day, let month, let year, let time, (1...31).contains(day), (0...9999).contains(year)
    else { return nil }
    func pad(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return Timestamp(rfc3339: "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(time)Z")
  }

  private static func monthNumber(_ name: String) -> Int? {
    months.firstIndex(of: name.lowercased()).map { $0 + 1 }
  }
}
