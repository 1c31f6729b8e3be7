import SusiJSON
import Testing

@testable import SusiOperatorLog

/// The request line written straight into bytes is the line the general entry would have
/// written for the same fields: byte for byte, in JSON and in text.
@Suite struct RequestLineTests {
  /// One request's fields.
  struct Request {
    var level = OperatorLog.Level.info
    var id = "00c0ffee00c0ffee-1"
    var method = "POST"
    var path = "/actions"
    var status = 202
    var milliseconds = 0.3
    var bytes = 11
    var client = "127.0.0.1"

    var fields: [(key: String, value: OperatorLog.Value)] {
      [
        ("request", .string(id)), ("method", .string(method)), ("path", .string(path)),
        ("status", .int(status)), ("ms", .double(milliseconds)), ("bytes", .int(bytes)),
        ("client", .string(client)),
      ]
    }
  }

  static let requests: [Request] = [
    Request(),
    Request(
      level: .error, id: "proxy-42.a_b", method: "GET", path: "/x\n\"forged\"\\ \u{1b}[31m line",
      status: 503, milliseconds: 0, bytes: -1, client: "::1"),
    Request(level: .warning, path: "/état/日本", status: 404, milliseconds: 12_345.6, bytes: 0),
    Request(milliseconds: 1.0),
    Request(milliseconds: 99_999_999_999.9),
    Request(milliseconds: 1e13),
    Request(milliseconds: -0.0),
    Request(milliseconds: 0.25),
    Request(milliseconds: .infinity),
  ]

  @Test(arguments: requests)
  func theJSONLineIsTheGeneralLineByteForByte(_ request: Request) {
    let log = OperatorLog(component: "se\"rve", level: .debug, format: .json) { _ in }
    let time: Int64 = 1_795_000_000_123
    var text: [UInt8] = []
    DateTimeText.append(milliseconds: time, to: &text)
    let general = log.line(
      request.level, "request", request.fields, at: String(decoding: text, as: UTF8.self))
    let direct = log.requestLine(
      request.level, id: request.id, method: request.method, path: request.path,
      status: request.status, milliseconds: request.milliseconds, bytes: request.bytes,
      client: request.client, at: time)
    #expect(String(decoding: direct, as: UTF8.self) == String(decoding: general, as: UTF8.self))
  }

  @Test(arguments: [OperatorLog.Format.json, .text])
  func aRequestEntryWritesTheGeneralLineInEitherFormat(_ format: OperatorLog.Format) throws {
    let lines = OperatorLogTests.Lines()
    let log = OperatorLog(component: "serve", level: .info, format: format, writer: lines.writer())
    let request = Self.requests[1]
    log.request(
      request.level, id: request.id, method: request.method, path: request.path,
      status: request.status, milliseconds: request.milliseconds, bytes: request.bytes,
      client: request.client)
    log.request(
      .debug, id: "below-the-level", method: "GET", path: "/", status: 200, milliseconds: 1,
      bytes: 1, client: "127.0.0.1")
    let line = try #require(lines.all.first)
    #expect(lines.all.count == 1)
    // The time is the only part that differs from a line written at another moment.
    let time = String(line.dropFirst(format == .json ? 9 : 0).prefix(24))
    #expect(time.hasSuffix("Z"))
    let general = String(
      decoding: log.line(request.level, "request", request.fields, at: time), as: UTF8.self)
    #expect(line == general)
  }

  @Test func tenthsAreWrittenAsSwiftWritesTheDouble() {
    var generator = SystemRandomNumberGenerator()
    var values: [Double] = [0, 0.1, 0.9, 1, 9.9, 10, 100.5, 1e11 + 0.1, 999_999_999_999.9]
    for magnitude in [10, 1000, 100_000, 10_000_000, 9_999_999_999_999] {
      for _ in 0..<200 {
        values.append(Double(Int.random(in: 0...magnitude, using: &generator)) / 10)
      }
    }
    for value in values + [0.05, 1.25, 1e12, 3e15, -1.5, .nan] {
      var fast = JSONWriter()
      OperatorLog.appendTenths(value, to: &fast)
      var plain = JSONWriter()
      plain.double(value)
      #expect(fast.bytes == plain.bytes, "\(value)")
    }
  }
}
