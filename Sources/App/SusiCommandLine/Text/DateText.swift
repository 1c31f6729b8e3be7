public import Foundation
public import SusiCore

/// Dates for people, to the minute, in the renderer's time zone: the local one unless `--utc`
/// or `TZ=UTC` (`2026-11-21 10:00 UTC`, `2026-11-21 11:00 +01:00`). The log's RFC 3339 text is
/// exact but hard to scan.
public enum DateText {
  public static func minutes(_ moment: Timestamp, zone: TimeZone, seconds: Bool = false) -> String {
    let (text, suffix) = local(moment, zone: zone)
    let (date, clock) = split(text)
    let time = clock.prefix(seconds ? 8 : 5)
    return "\(date) \(time) \(suffix)"
  }

  /// The date and the time of day of an RFC 3339 text (whose year may have six digits).
  private static func split(_ text: String) -> (date: Substring, time: Substring) {
    let date = text.prefix { $0 != "T" }
    return (date, text.dropFirst(date.count + 1))
  }

  /// The time of day alone when `moment` falls on the same day as `now`, else with its date.
  public static func clock(_ moment: Timestamp, now: Timestamp, zone: TimeZone) -> String {
    let (text, suffix) = local(moment, zone: zone)
    let today = split(local(now, zone: zone).text).date
    let (date, clock) = split(text)
    let time = clock.prefix(5)
    let day = date == today ? "" : "\(date) "
    // Local times go without their offset; UTC says so.
    return "\(day)\(time)" + (suffix == "UTC" ? " UTC" : "")
  }

  /// How far `moment` is from `now`, roughly: `in 30 min`, `2 h ago`, `in 3 days`.
  public static func relative(_ moment: Timestamp, now: Timestamp) -> String {
    let seconds = (moment.milliseconds - now.milliseconds) / 1000
    let size = abs(seconds)
    let amount: String
    switch size {
    case ..<60: amount = "\(size) s"
    case ..<3600: amount = "\(size / 60) min \(size % 60 < 10 ? "0" : "")\(size % 60) s"
    case ..<(48 * 3600): amount = "\(size / 3600) h \(size % 3600 / 60) min"
    default: amount = "\(size / 86400) days"
    }
    if size < 1 { return "now" }
    return seconds > 0 ? "in \(amount)" : "\(amount) ago"
  }

  /// The RFC 3339 text of `moment` shifted into `zone`, and the zone's name for it (`UTC`, or
  /// its offset such as `+01:00`).
  private static func local(_ moment: Timestamp, zone: TimeZone) -> (text: String, suffix: String) {
    let offset = zone.secondsFromGMT(
      for: Date(timeIntervalSince1970: Double(moment.milliseconds) / 1000))
    let shifted = moment.adding(milliseconds: Int64(offset) * 1000).rfc3339
    if offset == 0 && isUTC(zone) { return (shifted, "UTC") }
    let sign = offset < 0 ? "-" : "+"
    let minutes = abs(offset) / 60
    let hours = minutes / 60
    return (
      shifted,
      "\(sign)\(hours < 10 ? "0" : "")\(hours):\(minutes % 60 < 10 ? "0" : "")\(minutes % 60)"
    )
  }

  public static func isUTC(_ zone: TimeZone) -> Bool {
    ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "UCT", "Zulu", "Etc/Zulu", "Universal"].contains(
      zone.identifier)
  }

  /// The zone to show times in: UTC with `--utc`, else `TZ` when it names a zone, else the
  /// machine's own.
  public static func zone(utc: Bool, environment: [String: String]) -> TimeZone {
    if utc { return TimeZone(identifier: "UTC")! }
    if var name = environment["TZ"], !name.isEmpty {
      if name.hasPrefix(":") { name.removeFirst() }
      if let zone = TimeZone(identifier: name) { return zone }
    }
    return TimeZone.current
  }
}
