import SusiCore
import SusiCrypto
import Testing

@Suite struct TimestampTests {
  @Test(
    arguments: [
      (0, "1970-01-01T00:00:00.000Z"), (1, "1970-01-01T00:00:00.001Z"),
      (-1, "1969-12-31T23:59:59.999Z"),
      (1_795_255_200_123, "2026-11-21T10:00:00.123Z"),
      (1_709_210_096_789, "2024-02-29T12:34:56.789Z"),
      (951_782_400_000, "2000-02-29T00:00:00.000Z"), (-14_182_940_000, "1969-07-20T20:17:40.000Z"),
      (-2_203_891_200_000, "1900-03-01T00:00:00.000Z"),
      (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
      (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ] as [(Int64, String)])
  func formatsRFC3339InUTCWithMilliseconds(milliseconds: Int64, text: String) {
    let timestamp = Timestamp(milliseconds: milliseconds)
    #expect(timestamp.rfc3339 == text)
    #expect(timestamp.description == text)
    #expect(Timestamp(rfc3339: text) == timestamp)
  }

  @Test(arguments: [
    ("2026-11-21T10:00:00Z", "2026-11-21T10:00:00.000Z"),
    ("2026-11-21T10:00:00.1Z", "2026-11-21T10:00:00.100Z"),
    ("2026-11-21T10:00:00.12Z", "2026-11-21T10:00:00.120Z"),
    ("2026-11-21T10:00:00.123456789Z", "2026-11-21T10:00:00.123Z"),
    ("2026-11-21T10:00:00.9999Z", "2026-11-21T10:00:00.999Z"),
    ("2026-11-21T10:00:00,5Z", "2026-11-21T10:00:00.500Z"),
    ("2026-11-21t10:00:00z", "2026-11-21T10:00:00.000Z"),
    ("2026-11-21 10:00:00.5", "2026-11-21T10:00:00.500Z"),
    ("2026-11-21T10:00:00", "2026-11-21T10:00:00.000Z"),
    ("2026-11-21T11:00:00+01:00", "2026-11-21T10:00:00.000Z"),
    ("2026-11-21T04:30:00-05:30", "2026-11-21T10:00:00.000Z"),
    ("2026-11-21T15:30:00.250+0530", "2026-11-21T10:00:00.250Z"),
    ("2026-11-21T10:00:00+00:00", "2026-11-21T10:00:00.000Z"),
    ("2026-11-21T10:00:00-00:00", "2026-11-21T10:00:00.000Z"),
    ("2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00.000Z"),
    ("2025-12-31T23:30:00-23:59", "2026-01-01T23:29:00.000Z"),
    ("2024-02-29T23:59:59.999Z", "2024-02-29T23:59:59.999Z"),
    ("2000-02-29T00:00:00Z", "2000-02-29T00:00:00.000Z"),
    ("1969-12-31T23:59:59.5Z", "1969-12-31T23:59:59.500Z"),
    ("1601-01-01T00:00:00Z", "1601-01-01T00:00:00.000Z"),
    ("2016-12-31T23:59:60Z", "2016-12-31T23:59:59.000Z"),
    ("2016-12-31T23:59:60.250Z", "2016-12-31T23:59:59.250Z"),
  ])
  func parsesRFC3339AndItsCommonVariants(text: String, canonical: String) {
    #expect(Timestamp(rfc3339: text)?.rfc3339 == canonical)
  }

  @Test(arguments: [
    "", "2026-11-21", "2026-11-21T10:00Z", "2026-11-21T10Z", "2026-13-01T00:00:00Z",
    "2026-00-10T00:00:00Z",
    "2026-04-31T00:00:00Z", "2026-11-00T00:00:00Z", "2026-11-32T00:00:00Z", "2023-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T10:60:00Z", "2026-11-21T10:00:61Z",
    "26-11-21T10:00:00Z", "+2026-11-21T10:00:00Z", "2026-11-21T10:00:00.Z",
    "2026-11-21T10:00:00+5:00",
    "2026-11-21T10:00:00+05", "2026-11-21T10:00:00+24:00", "2026-11-21T10:00:00+05:60",
    "2026-11-21T10:00:00ZZ",
    "2026-11-21T10:00:00 Z", "2026/11/21T10:00:00Z", "2026-11-21X10:00:00Z", "2026-11-21T1:00:00Z",
    "２０２６-11-21T10:00:00Z", "2026-11-21T10:00:00Z\n", " 2026-11-21T10:00:00Z",
    "2026-11-21T10:00:00.5.5Z",
    "2026-1-21T10:00:00Z", "yesterday",
    // The form the log writes, read by fixed positions: the same checks apply.
    "2026-13-01T00:00:00.000Z", "2026-00-01T00:00:00.000Z", "2023-02-29T00:00:00.000Z",
    "2026-04-31T00:00:00.000Z", "2026-11-00T00:00:00.000Z", "2026-11-21T24:00:00.000Z",
    "2026-11-21T10:60:00.000Z", "2026-11-21T10:00:61.000Z", "2026-11-21T10:00:0a.000Z",
    "2026-11-21T10:00:00.00/Z", "2026-11-21T10:00:00.000X", "2026-11-21T10:00:00:000Z",
  ])
  func refusesInvalidDateTimes(text: String) {
    #expect(Timestamp(rfc3339: text) == nil)
  }

  @Test func roundTripsManyMoments() {
    var generator = SeededRandom(seed: 1970)
    let earliest = Timestamp(rfc3339: "0000-01-01T00:00:00Z")!.milliseconds
    let latest = Timestamp(rfc3339: "9999-12-31T23:59:59.999Z")!.milliseconds
    for _ in 0..<5000 {
      let moment = Timestamp(milliseconds: Int64.random(in: earliest...latest, using: &generator))
      #expect(Timestamp(rfc3339: moment.rfc3339) == moment, "\(moment.milliseconds)")
    }
  }

  @Test func roundTripsEveryDayAcrossLeapYearsAndCenturies() {
    // Every day from 1896 to 2104 at a time of day that changes with the day.
    let start = Timestamp(rfc3339: "1896-01-01T00:00:00Z")!.milliseconds
    for day in 0..<(209 * 366) {
      let moment = Timestamp(
        milliseconds: start + Int64(day) * 86_400_000 + Int64(day % 86_400) * 997)
      #expect(Timestamp(rfc3339: moment.rfc3339) == moment, "day \(day)")
    }
  }

  @Test(
    arguments: [
      ("-0001-12-31T00:01:00Z", nil), ("-000001-12-31T00:01:00Z", "-000001-12-31T00:01:00.000Z"),
      ("+010000-01-01T00:00:00Z", "+010000-01-01T00:00:00.000Z"),
      ("+002026-11-21T10:00:00Z", "2026-11-21T10:00:00.000Z"),
      ("-000000-01-01T00:00:00Z", nil), ("+275760-09-13T00:00:00Z", "+275760-09-13T00:00:00.000Z"),
      ("+275760-09-13T00:00:00.001Z", nil),
      ("-271821-04-20T00:00:00Z", "-271821-04-20T00:00:00.000Z"),
      ("-271821-04-19T23:59:59.999Z", nil), ("+999999-12-31T23:59:59Z", nil),
      ("0000-01-01T00:00:00+23:59", "-000001-12-31T00:01:00.000Z"),
      ("9999-12-31T23:59:59.999-23:59", "+010000-01-01T23:58:59.999Z"),
    ] as [(String, String?)])
  func readsAndWritesYearsOutside0000To9999WithASignAndSixDigits(text: String, canonical: String?) {
    #expect(Timestamp(rfc3339: text)?.rfc3339 == canonical)
  }

  @Test(arguments: [Int64.min, Int64.min + 1, -8_640_000_000_000_001, Int64.max, 1 << 62])
  func momentsOutsideTheRangeAreClampedAndReadBack(milliseconds: Int64) {
    let moment = Timestamp(milliseconds: milliseconds)
    #expect(moment == (milliseconds < 0 ? Timestamp.minimum : Timestamp.maximum))
    #expect(Timestamp(rfc3339: moment.rfc3339) == moment)
  }

  @Test func addingNeverOverflows() {
    let now = Timestamp(rfc3339: "2026-11-21T10:00:00Z")!
    #expect(now.adding(milliseconds: .max) == .maximum)
    #expect(now.adding(milliseconds: .min) == .minimum)
    #expect(Timestamp.maximum.adding(milliseconds: .max) == .maximum)
    #expect(Timestamp.minimum.adding(milliseconds: -1) == .minimum)
    #expect(Timestamp.maximum.milliseconds(since: .minimum) == 17_280_000_000_000_000)
  }

  @Test func everyYearAroundZeroAndTenThousandReadsBack() {
    for year in [-2, -1, 0, 1, 9998, 9999, 10000, 10001] {
      let days = Int64(year - 1970) * 36524 / 100
      let moment = Timestamp(milliseconds: days * 86_400_000 + 12_345)
      #expect(Timestamp(rfc3339: moment.rfc3339) == moment, "\(moment.rfc3339)")
    }
  }

  @Test func ordersAndAddsByMilliseconds() {
    let a = Timestamp(milliseconds: 1000)
    let b = a.adding(milliseconds: 1)
    #expect(a < b)
    #expect(b.milliseconds == 1001)
    #expect(b.adding(milliseconds: -1) == a)
    #expect([b, a].sorted() == [a, b])
  }
}
