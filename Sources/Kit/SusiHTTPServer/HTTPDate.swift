import Glibc

/// The `Date` header value (IMF-fixdate), recomputed at most once a second.
struct HTTPDate {
  private var second = -1
  private var text = ""

  private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
  private static let months = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// The current date, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
  mutating func current() -> String {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME_COARSE, &spec)
    let now = Int(spec.tv_sec)
    if now != second {
      second = now
      text = Self.format(secondsSince1970: now)
    }
    return text
  }

  static func format(secondsSince1970 seconds: Int) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let day = days[Int(parts.tm_wday) % 7]
    let month = months[Int(parts.tm_mon) % 12]
    return
      "\(day), \(twoDigits(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
  }
}
