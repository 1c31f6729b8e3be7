import Glibc
import SusiJSON
import SusiOperatorLog
import Synchronization
import Testing

/// The time on every line: UTC to the millisecond, `2026-11-26T10:03:10.123Z`, the fields zero-
/// padded; and a reserved name among the fields does not replace the line's own.
@Suite struct OperatorLogTimeTests {
  final class Lines: Sendable {
    private let lines = Mutex<[[UInt8]]>([])
    var all: [[UInt8]] { lines.withLock { $0 } }
    func writer() -> OperatorLog.Writer { { bytes in self.lines.withLock { $0.append(bytes) } } }
  }

  @Test func theTimeIsUTCToTheMillisecondWithEveryFieldPadded() throws {
    let lines = Lines()
    let log = OperatorLog(component: "serve", level: .info, format: .json, writer: lines.writer())
    var before = time(nil)
    log.info("tick", ["time": .string("forged"), "message": .string("forged"), "n": .int(1)])
    var after = time(nil)
    let line = try #require(lines.all.first)
    #expect(line.last == 0x0A)
    let object = try JSONParser.parse(Array(line.dropLast()))
    #expect(object["message"]?.string == "tick")
    #expect(object["n"]?.int == 1)
    let stamp = Array(try #require(object["time"]?.string).utf8)
    try #require(stamp.count == 24)
    let digitPlaces = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22]
    for place in digitPlaces { #expect((48...57).contains(stamp[place]), "\(place)") }
    #expect(
      String(
        decoding: [stamp[4], stamp[7], stamp[10], stamp[13], stamp[16], stamp[19], stamp[23]],
        as: UTF8.self) == "--T::.Z")
    // The date and time to the second are those of the clock around the call.
    func text(_ seconds: inout time_t) -> String {
      var parts = tm()
      gmtime_r(&seconds, &parts)
      func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
      return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
        + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
    let second = String(decoding: stamp[0..<19], as: UTF8.self)
    #expect(second == text(&before) || second == text(&after))
  }
}
