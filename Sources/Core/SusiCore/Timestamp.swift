import SusiJSON

/// A moment in UTC, to the millisecond: the `at` of every event.
///
/// Text form is RFC 3339 with milliseconds and `Z` (`2026-11-21T10:00:00.123Z`), written by
/// `DateTimeText` and parsed here, by hand: they sit on the log's hot path, and the reducer must
/// not touch a clock or a locale.
///
/// A moment lies between `minimum` and `maximum` (100,000,000 days either side of 1970, the
/// range of an ECMAScript `Date`): making one from any number, or adding any number to one,
/// clamps to that range rather than overflows, so no value from outside can trap. Years outside
/// 0000–9999 are written as ECMAScript writes them, with a sign and six digits
/// (`+010000-01-01T00:00:00.000Z`, `-000001-12-31T23:59:59.999Z`), and read back.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Milliseconds since 1970-01-01T00:00:00Z, from `minimum` to `maximum`.
  public private(set) var milliseconds: Int64

  /// The earliest moment: -271821-04-20T00:00:00.000Z.
  public static let minimum = Timestamp(exactly: -limit)
  /// The latest moment: +275760-09-13T00:00:00.000Z.
  public static let maximum = Timestamp(exactly: limit)
  /// 100,000,000 days in milliseconds.
  private static let limit: Int64 = 8_640_000_000_000_000

  /// The moment `milliseconds` after 1970-01-01T00:00:00Z, clamped to `minimum…maximum`.
  public init(milliseconds: Int64) {
    self.milliseconds = min(max(milliseconds, -Self.limit), Self.limit)
  }

  private init(exactly milliseconds: Int64) { self.milliseconds = milliseconds }

  public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

  /// This moment plus `milliseconds`, clamped to `minimum…maximum`.
  public func adding(milliseconds delta: Int64) -> Timestamp {
    let (sum, overflow) = milliseconds.addingReportingOverflow(delta)
    if overflow { return delta > 0 ? .maximum : .minimum }
    return Timestamp(milliseconds: sum)
  }

  /// The milliseconds from `other` to this moment (negative when `other` is later). Never
  /// overflows: both lie within 100,000,000 days of 1970.
  public func milliseconds(since other: Timestamp) -> Int64 { milliseconds - other.milliseconds }

  public var description: String { rfc3339 }

  /// `yyyy-MM-ddTHH:mm:ss.SSSZ`.
  public var rfc3339: String {
    var out = [UInt8]()
    out.reserveCapacity(24)
    append(to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends the RFC 3339 text (without quotes) to `out`: the log's hot path writes timestamps
  /// straight into the record.
  public func append(to out: inout [UInt8]) {
    DateTimeText.append(milliseconds: milliseconds, to: &out)
  }

  /// Parses RFC 3339 / ISO 8601 date-times: `2026-11-21T10:00:00Z`, with an optional fraction of
  /// any length (kept to the millisecond), and `Z` or a `±HH:MM`/`±HHMM` offset. Also accepts a
  /// space instead of `T` (as `java.sql.Timestamp` prints) and a missing zone (taken as UTC).
  public init?(rfc3339 text: String) {
    var text = text
    guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
    self.milliseconds = parsed
  }

  /// Parses the UTF-8 bytes of an RFC 3339 date-time, as `init?(rfc3339:)` does.
  public init?(rfc3339Bytes bytes: UnsafeRawBufferPointer) {
    guard let parsed = Self.parse(bytes.bindMemory(to: UInt8.self)) else { return nil }
    self.milliseconds = parsed
  }

  private static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
    if let milliseconds = parseWritten(b) { return milliseconds }
    var i = 0
    func number(_ count: Int) -> Int? {
      guard i + count <= b.count else { return nil }
      var value = 0
      for j in i..<(i + count) {
        guard b[j] >= 0x30 && b[j] <= 0x39 else { return nil }
        value = value * 10 + Int(b[j] - 0x30)
      }
      i += count
      return value
    }
    func expect(_ c: UInt8) -> Bool {
      guard i < b.count, b[i] == c else { return false }
      i += 1
      return true
    }
    // Four digits, or a sign and six (years outside 0000–9999; `-000000` is not a year).
    var yearSign = 0
    if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
      yearSign = b[i] == UInt8(ascii: "-") ? -1 : 1
      i += 1
    }
    guard let unsignedYear = number(yearSign == 0 ? 4 : 6),
      yearSign >= 0 || unsignedYear != 0
    else { return nil }
    let year = yearSign < 0 ? -unsignedYear : unsignedYear
    guard expect(UInt8(ascii: "-")), let month = number(2),
      expect(UInt8(ascii: "-")), let day = number(2), (1...12).contains(month),
      (1...daysIn(month: month, year: year)).contains(day)
    else { return nil }
    guard i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == 0x20 else {
      return nil
    }
    i += 1
    guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2),
      expect(UInt8(ascii: ":")), let second = number(2), hour < 24, minute < 60, second < 61
    else { return nil }
    var millis = 0
    if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
      i += 1
      var scale = 100
      let start = i
      while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
        millis += Int(b[i] - 0x30) * scale
        scale /= 10
        i += 1
      }
      guard i > start else { return nil }
    }
    var offsetMinutes = 0
    if i < b.count {
      switch b[i] {
      case UInt8(ascii: "Z"), UInt8(ascii: "z"):
        i += 1
      case UInt8(ascii: "+"), UInt8(ascii: "-"):
        let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
        i += 1
        guard let oh = number(2) else { return nil }
        _ = expect(UInt8(ascii: ":"))
        guard let om = number(2), oh < 24, om < 60 else { return nil }
        offsetMinutes = sign * (oh * 60 + om)
      default:
        return nil
      }
    }
    guard i == b.count else { return nil }
    let days = Self.days(fromCivil: year, month, day)
    // A leap second (60) is folded into the second before it. Six-digit years keep every
    // product well inside Int64; the range check refuses what `minimum…maximum` does not hold.
    let seconds =
      Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
      - Int64(offsetMinutes * 60)
    let milliseconds = seconds * 1000 + Int64(millis)
    guard (-limit...limit).contains(milliseconds) else { return nil }
    return milliseconds
  }

  /// The form `append(to:)` writes for years 0000–9999 (`2026-11-21T10:00:00.123Z`, every `at`
  /// of a log), read by fixed positions; nil for anything else, which `parse` reads the long way.
  private static func parseWritten(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard b.count == 24, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
      b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
      b[19] == UInt8(ascii: "."), b[23] == UInt8(ascii: "Z")
    else { return nil }
    // Each digit's value, or one above 9 for a byte that is not a digit.
    var bad: UInt8 = 0
    func digits(_ from: Int, _ count: Int) -> Int {
      var value = 0
      for j in from..<(from + count) {
        let d = b[j] &- 0x30
        bad |= d > 9 ? 1 : 0
        value = value &* 10 &+ Int(d)
      }
      return value
    }
    let year = digits(0, 4)
    let month = digits(5, 2)
    let day = digits(8, 2)
    let hour = digits(11, 2)
    let minute = digits(14, 2)
    let second = digits(17, 2)
    let millis = digits(20, 3)
    guard bad == 0, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
      hour < 24, minute < 60, second < 61
    else { return nil }
    let days = Self.days(fromCivil: year, month, day)
    let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
    return seconds * 1000 + Int64(millis)
  }

  private static func isLeap(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
  static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }
}
