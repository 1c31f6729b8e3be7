/// Moments as JSON documents commonly write them: RFC 3339 in UTC to the millisecond
/// (`2026-11-21T10:00:00.123Z`). Years outside 0000–9999 are written as ECMAScript writes them,
/// with a sign and six digits (`+010000-01-01T00:00:00.000Z`).
///
/// Written digit by digit into the caller's bytes, without a formatter or a locale: it sits on
/// the hot paths of the event log and the operators' log.
public enum DateTimeText {
  /// Appends the text (without quotes) of the moment `milliseconds` after
  /// 1970-01-01T00:00:00Z.
  public static func append(milliseconds: Int64, to out: inout [UInt8]) {
    var days = milliseconds / 86_400_000
    var msOfDay = milliseconds % 86_400_000
    if msOfDay < 0 {
      days -= 1
      msOfDay += 86_400_000
    }
    let (year, month, day) = civil(fromDays: days)
    let ms = Int(msOfDay)
    // Written into a small buffer and appended once: an append per byte checks the array's
    // uniqueness and capacity each time.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { text in
      var count = 0
      func put(_ byte: UInt8) {
        text[count] = byte
        count += 1
      }
      func digits(_ value: Int, _ width: Int) {
        var v = value
        for index in stride(from: count + width - 1, through: count, by: -1) {
          text[index] = UInt8(truncatingIfNeeded: v % 10) + 0x30
          v /= 10
        }
        count += width
      }
      if (0...9999).contains(year) {
        digits(year, 4)
      } else {
        put(year < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        digits(abs(year) % 1_000_000, 6)
      }
      put(UInt8(ascii: "-"))
      digits(month, 2)
      put(UInt8(ascii: "-"))
      digits(day, 2)
      put(UInt8(ascii: "T"))
      digits(ms / 3_600_000, 2)
      put(UInt8(ascii: ":"))
      digits(ms / 60_000 % 60, 2)
      put(UInt8(ascii: ":"))
      digits(ms / 1000 % 60, 2)
      put(UInt8(ascii: "."))
      digits(ms % 1000, 3)
      put(UInt8(ascii: "Z"))
      out.append(contentsOf: UnsafeBufferPointer(rebasing: text[..<count]))
    }
  }

  /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's algorithm).
  static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
    let z = Int(days) + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
