import SusiCore

/// Dates for people: UTC, to the minute (`2026-11-21 10:00 UTC`). The log's RFC 3339 text is
/// exact but hard to scan.
enum DateText {
  static func minutes(_ moment: Timestamp, seconds: Bool = false) -> String {
    let text = moment.rfc3339  // yyyy-MM-ddTHH:mm:ss.SSSZ
    let date = text.prefix(10)
    let time = text.dropFirst(11).prefix(seconds ? 8 : 5)
    return "\(date) \(time) UTC"
  }
}
