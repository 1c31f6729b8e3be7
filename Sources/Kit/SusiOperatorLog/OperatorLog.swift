import Glibc
import SusiJSON
import Synchronization

/// The operators' log of a server (`susi serve`, `susi server`, `susi web`): one line per request
/// or notable event on standard error, as a JSON object (`--log-format json`, for a log
/// collector) or as readable text (on a terminal), at or above a level (`--log-level`).
///
/// It never holds a secret: callers log paths without their query, never headers or bodies.
///
/// ```swift
/// let log = OperatorLog(component: "serve", level: .info, format: .text)
/// log.info("listening", ["url": .string("http://127.0.0.1:8080")])
/// ```
public struct OperatorLog: Sendable {
  /// How much to say, least first.
  public enum Level: Int, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    /// Its name on the command line and in a line.
    public var name: String {
      switch self {
      case .debug: "debug"
      case .info: "info"
      case .warning: "warning"
      case .error: "error"
      }
    }

    /// `name`, for writing without a string.
    var staticName: StaticString {
      switch self {
      case .debug: "debug"
      case .info: "info"
      case .warning: "warning"
      case .error: "error"
      }
    }

    public init?(name: String) {
      guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
      self = level
    }

    public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
  }

  /// How a line is written.
  public enum Format: String, Sendable, CaseIterable {
    /// One JSON object per line.
    case json
    /// `TIME LEVEL component: message key=value …`, for a person.
    case text

    /// Text when `descriptor` is a terminal (a person watches), JSON otherwise (a service
    /// manager or collector reads it).
    public static func chosen(for descriptor: Int32 = 2) -> Format {
      isatty(descriptor) == 1 ? .text : .json
    }
  }

  /// A field's value.
  public enum Value: Sendable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
  }

  /// What writes the lines: by default, standard error.
  public typealias Writer = @Sendable ([UInt8]) -> Void

  /// Who writes (`serve`, `server`, `web`).
  public let component: String
  /// The least level written.
  public let level: Level
  public let format: Format
  private let writer: Writer

  public init(
    component: String, level: Level = .info, format: Format = .chosen(),
    writer: @escaping Writer = OperatorLog.standardError
  ) {
    self.component = component
    self.level = level
    self.format = format
    self.writer = writer
  }

  /// Writes nothing.
  public static func off(_ component: String) -> OperatorLog {
    OperatorLog(component: component, level: .error, format: .json) { _ in }
  }

  /// Standard error, through a buffer that a thread of its own writes (see `LineBuffer`): a
  /// line is never split or interleaved with another, and reaches standard error about a
  /// millisecond after it is logged.
  public static let standardError: Writer = { bytes in LineBuffer.standardError.append(bytes) }

  public func debug(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) {
    log(.debug, message, fields)
  }
  public func info(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) {
    log(.info, message, fields)
  }
  public func warning(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) {
    log(.warning, message, fields)
  }
  public func error(_ message: String, _ fields: KeyValuePairs<String, Value> = [:]) {
    log(.error, message, fields)
  }

  /// Writes one line at `level`, when the log's level lets it through.
  public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, Value>) {
    guard level >= self.level else { return }
    writer(line(level, message, Array(fields), at: Self.now()))
  }

  /// The line (with its newline) for one entry at `time` (`2026-11-26T10:03:10.123Z`).
  func line(
    _ level: Level, _ message: String, _ fields: [(key: String, value: Value)], at time: String
  ) -> [UInt8] {
    switch format {
    case .json:
      var w = JSONWriter(capacity: 256)
      w.object { o in
        o.field("time", time)
        o.field("level", level.name)
        o.field("component", component)
        o.field("message", message)
        for (key, value) in fields where !Self.isReserved(key) {
          o.field(dynamic: key) { w in
            switch value {
            case .string(let text): w.string(text)
            case .int(let number): w.int(number)
            case .double(let number): w.double(number)
            }
          }
        }
      }
      w.byte(0x0A)
      return w.bytes
    case .text:
      var text = "\(time) \(level.name.uppercased()) \(component): \(Self.printable(message))"
      for (key, value) in fields {
        switch value {
        case .string(let string):
          let shown = Self.printable(string)
          let plain = !shown.isEmpty && !shown.contains(where: { $0 == " " || $0 == "\"" })
          text += " \(key)=" + (plain ? shown : "\"\(shown.replacingOccurrences("\"", "\\\""))\"")
        case .int(let number): text += " \(key)=\(number)"
        case .double(let number): text += " \(key)=\(number)"
        }
      }
      return Array((text + "\n").utf8)
    }
  }

  /// Writes the line of one answered request at `level` (what `RequestLogging` logs): the same
  /// line as `log(level, "request", …)` with the fields `request`, `method`, `path`, `status`,
  /// `ms`, `bytes` and `client` in that order. A JSON line is written straight into its bytes,
  /// with no array of fields and no strings made on the way: it runs once per request.
  public func request(
    _ level: Level, id: String, method: String, path: String, status: Int,
    milliseconds: Double, bytes: Int, client: String
  ) {
    guard level >= self.level else { return }
    guard format == .json else {
      log(
        level, "request",
        [
          "request": .string(id), "method": .string(method), "path": .string(path),
          "status": .int(status), "ms": .double(milliseconds), "bytes": .int(bytes),
          "client": .string(client),
        ])
      return
    }
    writer(
      requestLine(
        level, id: id, method: method, path: path, status: status, milliseconds: milliseconds,
        bytes: bytes, client: client, at: Self.nowMilliseconds()))
  }

  /// The JSON line `request(…)` writes, at `time` (milliseconds since 1970).
  func requestLine(
    _ level: Level, id: String, method: String, path: String, status: Int,
    milliseconds: Double, bytes: Int, client: String, at time: Int64
  ) -> [UInt8] {
    var w = JSONWriter(capacity: 192 + path.utf8.count + component.utf8.count)
    w.raw("{\"time\":\"")
    DateTimeText.append(milliseconds: time, to: &w.bytes)
    w.raw("\",\"level\":\"")
    w.raw(level.staticName)
    w.raw("\",\"component\":")
    w.string(component)
    w.raw(",\"message\":\"request\",\"request\":")
    w.string(id)
    w.raw(",\"method\":")
    w.string(method)
    w.raw(",\"path\":")
    w.string(path)
    w.raw(",\"status\":")
    w.int(status)
    w.raw(",\"ms\":")
    Self.appendTenths(milliseconds, to: &w)
    w.raw(",\"bytes\":")
    w.int(bytes)
    w.raw(",\"client\":")
    w.string(client)
    w.raw("}\n")
    return w.bytes
  }

  /// Writes `value` as `JSONWriter.double` does (Swift's shortest text of a `Double`), digit by
  /// digit when it is a whole number of tenths below a trillion (a duration rounded to 0.1 ms):
  /// there that text is always the tenths' integer part, a point and one digit.
  static func appendTenths(_ value: Double, to w: inout JSONWriter) {
    let tenths = (value * 10).rounded()
    guard value.sign == .plus, value < 1e12, tenths / 10 == value else {
      w.double(value)
      return
    }
    let whole = Int(tenths)
    w.int(whole / 10)
    w.byte(UInt8(ascii: "."))
    w.byte(UInt8(truncatingIfNeeded: whole % 10) + 0x30)
  }

  /// Whether the JSON line sets the name `key` itself (compared without hashing: a line has a
  /// handful of fields).
  private static func isReserved(_ key: String) -> Bool {
    key == "time" || key == "level" || key == "component" || key == "message"
  }

  /// `text` with control characters (a forged newline, an escape sequence) shown as `\u{…}`.
  static func printable(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
      return text
    }
    var out = ""
    for scalar in text.unicodeScalars {
      if scalar.value < 0x20 || scalar.value == 0x7F {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// The current UTC time with milliseconds (`2026-11-26T10:03:10.123Z`).
  static func now() -> String {
    var text: [UInt8] = []
    text.reserveCapacity(24)
    DateTimeText.append(milliseconds: nowMilliseconds(), to: &text)
    return String(decoding: text, as: UTF8.self)
  }

  /// The current time in milliseconds since 1970.
  static func nowMilliseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec / 1_000_000)
  }
}

extension String {
  fileprivate func replacingOccurrences(_ target: Character, _ replacement: String) -> String {
    var out = ""
    for character in self {
      if character == target { out += replacement } else { out.append(character) }
    }
    return out
  }
}
