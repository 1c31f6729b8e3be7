import Foundation
import Glibc

/// The date spellings the real server uses, written by hand so that no shared `DateFormatter`
/// is needed across threads. All are UTC.
enum SusiDateFormat {
  /// Broken-down UTC time of `date`, with milliseconds.
  private static func parts(_ date: Date) -> (tm, Int) {
    let millisSinceEpoch = (date.timeIntervalSince1970 * 1000).rounded()
    let seconds = Int(floor(millisSinceEpoch / 1000))
    let millis = Int(millisSinceEpoch) - seconds * 1000
    var time = time_t(seconds)
    var broken = tm()
    gmtime_r(&time, &broken)
    return (broken, millis)
  }

  private static func pad(_ value: Int32, _ width: Int) -> String {
    pad(Int(value), width)
  }

  private static func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }

  private static func dayAndTime(_ t: tm, dateTimeSeparator: String) -> String {
    "\(pad(t.tm_year + 1900, 4))-\(pad(t.tm_mon + 1, 2))-\(pad(t.tm_mday, 2))"
      + "\(dateTimeSeparator)\(pad(t.tm_hour, 2)):\(pad(t.tm_min, 2)):\(pad(t.tm_sec, 2))"
  }

  /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` (Joda `dateTime()` in UTC): chat and memory dates.
  static func millis(_ date: Date) -> String {
    let (t, ms) = parts(date)
    return dayAndTime(t, dateTimeSeparator: "T") + ".\(pad(ms, 3))Z"
  }

  /// `yyyy-MM-dd'T'HH:mm:ss'Z'`: skill creation and modification times.
  static func seconds(_ date: Date) -> String {
    dayAndTime(parts(date).0, dateTimeSeparator: "T") + "Z"
  }

  /// Java `FileTime.toString()`: ISO-8601 with the fraction's trailing zeros dropped, and no
  /// fraction at all when it is zero (`2020-09-07T21:16:14.52Z`).
  static func fileTime(_ date: Date) -> String {
    let (t, ms) = parts(date)
    var text = dayAndTime(t, dateTimeSeparator: "T")
    if ms != 0 {
      var fraction = pad(ms, 3)
      while fraction.hasSuffix("0") { fraction.removeLast() }
      text += "." + fraction
    }
    return text + "Z"
  }

  /// Java `java.sql.Timestamp.toString()`: `yyyy-MM-dd HH:mm:ss.f` with at least one fraction
  /// digit and trailing zeros dropped (`2018-06-01 10:22:33.456`, `… 10:22:33.0`).
  static func timestamp(_ date: Date) -> String {
    let (t, ms) = parts(date)
    var fraction = pad(ms, 3)
    while fraction.count > 1 && fraction.hasSuffix("0") { fraction.removeLast() }
    return dayAndTime(t, dateTimeSeparator: " ") + "." + fraction
  }

  /// Parses `yyyy-MM-dd'T'HH:mm:ss[.SSS]Z` (the chat date format); nil for anything else.
  static func parseMillis(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    func number(_ from: Int, _ count: Int) -> Int? {
      guard from + count <= bytes.count else { return nil }
      var value = 0
      for b in bytes[from..<(from + count)] {
        guard b >= 0x30 && b <= 0x39 else { return nil }
        value = value * 10 + Int(b - 0x30)
      }
      return value
    }
    guard bytes.count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54,
      bytes[13] == 0x3A, bytes[16] == 0x3A,
      let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
      let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
    else { return nil }
    var millis = 0
    var index = 19
    if bytes[index] == 0x2E {
      index += 1
      var digits = 0
      while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
        if digits < 3 { millis = millis * 10 + Int(bytes[index] - 0x30) }
        digits += 1
        index += 1
      }
      guard digits > 0 else { return nil }
      if digits < 3 { for _ in digits..<3 { millis *= 10 } }
    }
    guard index == bytes.count - 1, bytes[index] == 0x5A else { return nil }
    var t = tm()
    t.tm_year = Int32(year - 1900)
    t.tm_mon = Int32(month - 1)
    t.tm_mday = Int32(day)
    t.tm_hour = Int32(hour)
    t.tm_min = Int32(minute)
    t.tm_sec = Int32(second)
    let seconds = timegm(&t)
    return Date(timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(millis) / 1000)
  }
}
