import Foundation
import SusiCore
import SusiJSON
import SusiRoundTrip
import Testing

/// The record property as a property: many hostile replies from a seeded generator (the same
/// ones every run), each checked from the wire to the snapshot.
@Suite struct RecordPropertyTests {
  @Test(arguments: 0..<8)
  func everyGeneratedReplyKeepsTheRecordProperty(batch: Int) throws {
    let folder = try HostileReplyTests.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    var generator = HostileReplies(seed: UInt64(2026 + batch))
    for index in 0..<60 {
      let reply = generator.next()
      do {
        try RecordRoundTrip.check(reply, under: folder)
      } catch {
        Issue.record(
          "batch \(batch) reply \(index): \(error)\nreply: \(String(decoding: reply.prefix(3000), as: UTF8.self))"
        )
        return
      }
    }
  }

  @Test func theGeneratorIsDeterministicAndVaried() {
    var a = HostileReplies(seed: 7)
    var b = HostileReplies(seed: 7)
    let first = (0..<20).map { _ in a.next() }
    #expect(first == (0..<20).map { _ in b.next() })
    #expect(Set(first).count >= 15)
  }
}

/// Server replies as a hostile server might send them: every action type with fields of the
/// wrong kind or missing, numbers at the edges, deep nesting, odd dates and delays, and now and
/// then the bytes cut or changed. SplitMix64, so a seed always gives the same replies.
struct HostileReplies {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  private mutating func random() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  private mutating func below(_ n: Int) -> Int { Int(random() % UInt64(max(n, 1))) }
  private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
  private mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }

  static let types = [
    "answer", "table", "rss", "websearch", "anchor", "map", "piechart", "video_play",
    "audio_play", "audio_volume", "image_show", "timer_set", "stop", "pause", "timer_reset",
    "unknown", "", "Answer", "self", "\u{1b}]52;c;x\u{07}",
  ]
  static let keys = [
    "type", "expression", "language", "mood", "columns", "count", "title", "description", "link",
    "query", "text", "latitude", "longitude", "zoom", "key", "value", "unit", "identifier",
    "identifier_type", "volume", "url", "time", "plan_delay", "raw", "serverType", "c", "name",
  ]

  /// One reply: mostly a chat reply, sometimes a memory reply or an intent line.
  mutating func next() -> [UInt8] {
    var w = JSONWriter()
    switch below(10) {
    case 0: w.value(memory())
    case 1: w.value(intent())
    default: w.value(chat())
    }
    var bytes = w.bytes
    if chance(10) && !bytes.isEmpty {
      // A damaged reply: cut, or a byte changed.
      if chance(50) {
        bytes.removeLast(below(bytes.count))
      } else {
        bytes[below(bytes.count)] = UInt8(truncatingIfNeeded: random())
      }
    }
    return bytes
  }

  private mutating func chat() -> JSON {
    var reply: JSONObject = ["query": .string(text())]
    reply["answers"] = .array((0..<below(3)).map { _ in answer() })
    if chance(30) { reply["query_date"] = date() }
    if chance(30) { reply["answer_date"] = date() }
    if chance(20) { reply["session"] = ["identity": ["anonymous": .bool(chance(50))]] }
    if chance(5) { reply["accepted"] = .bool(false) }
    return .object(reply)
  }

  private mutating func memory() -> JSON {
    .object([
      "cognitions": .array((0..<below(4)).map { _ in chat() }),
      "cognitions_remaining": number(),
    ])
  }

  private mutating func intent() -> JSON {
    var payload: JSONObject = ["query": .string(text())]
    if chance(20) { payload["language"] = value(depth: 2) }
    return .object([
      "type": .string(pick(["sendMessage", "search", "loadHistory", "submitRating"])),
      "payload": .object(payload), "id": value(depth: below(4) == 0 ? 255 : 3),
    ])
  }

  private mutating func answer() -> JSON {
    var answer: JSONObject = [:]
    answer["data"] = .array((0..<below(5)).map { _ in row() })
    answer["actions"] = .array((0..<below(6)).map { _ in action() })
    if chance(50) { answer["skills"] = [.string("/susi_skill_data/models/general/x.txt")] }
    return .object(answer)
  }

  private mutating func row() -> JSON {
    if chance(10) { return value(depth: 2) }
    var row: JSONObject = [:]
    for _ in 0..<below(4) { row[pick(Self.keys)] = value(depth: chance(5) ? 260 : 3) }
    return .object(row)
  }

  private mutating func action() -> JSON {
    if chance(5) { return value(depth: 2) }
    var action: JSONObject = ["type": .string(pick(Self.types))]
    for _ in 0..<below(5) { action[pick(Self.keys)] = field() }
    if chance(30) {
      action["plan_delay"] = pick([
        .int(Int.max), .int(-1), .int(0), .int(below(100_000)), .string("10"), .double(1e300),
        .int(31_536_000_001),
      ])
    }
    return .object(action)
  }

  /// A field value: usually something the field could hold, often not.
  private mutating func field() -> JSON {
    switch below(5) {
    case 0: return number()
    case 1: return .string(pick(["52.5", "$lat$", "-0", "1e400", "NaN", "", " 7 ", "true"]))
    case 2: return .object(["a": .string("name"), "b": .string("value")])
    default: return value(depth: chance(3) ? 255 : 2)
    }
  }

  private mutating func number() -> JSON {
    pick([
      .int(Int.max), .int(Int.min), .int(0), .int(-1), .double(-0.0), .double(1e308),
      .double(.leastNonzeroMagnitude), .double(0.1), .number("123456789012345678901234567890"),
      .number("0.10000000000000000000001"), .int(below(1_000)), .double(Double(below(100)) / 7),
    ])
  }

  private mutating func date() -> JSON {
    pick([
      .string("0000-01-01T00:00:00+23:59"), .string("9999-12-31T23:59:59.999-23:59"),
      .string("+275760-09-13T00:00:00.000Z"), .string("-271821-04-20T00:00:00Z"),
      .string("2026-11-21 10:00:00"), .string("2026-02-30T00:00:00Z"), .int(Int.max), .int(1),
      .int(-5), .string("2026-11-21"), .double(1e20),
    ])
  }

  private mutating func text() -> String {
    pick([
      "", "hi", "\u{0}\u{1f}\"\\", "é\u{301}👩‍👩‍👧", String(repeating: "x", count: 300),
      "\u{1b}[2J", "\u{FEFF}", "\u{10FFFF}", "[redacted]", "access_token=abc",
    ])
  }

  /// Any JSON value, nested up to `depth`.
  private mutating func value(depth: Int) -> JSON {
    if depth > 3 {
      // Deep: a chain of arrays or objects, as deep as asked.
      var value: JSON = number()
      for _ in 0..<depth { value = chance(50) ? .array([value]) : .object(["k": value]) }
      return value
    }
    switch below(depth > 0 ? 8 : 5) {
    case 0: return .null
    case 1: return .bool(chance(50))
    case 2: return number()
    case 3, 4: return .string(text())
    case 5: return .array((0..<below(3)).map { _ in value(depth: depth - 1) })
    default:
      var object: JSONObject = [:]
      for _ in 0..<below(3) { object[pick(Self.keys)] = value(depth: depth - 1) }
      return .object(object)
    }
  }
}
