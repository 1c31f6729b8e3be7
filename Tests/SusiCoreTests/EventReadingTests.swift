import Foundation
import SusiCore
import SusiJSON
import Testing

/// `Event.read` (the pull reader replay uses) must give exactly what `Event.decode` (the tree
/// decoder) gives: the same event, or the same error, for any bytes.
@Suite struct EventReadingTests {
  static let at = Timestamp(milliseconds: 1_795_255_200_123)

  /// What decoding gave: the event, or the error's text.
  enum Outcome: Equatable {
    case event(Event)
    case error(String)
  }

  static func outcomes(_ bytes: [UInt8]) -> (read: Outcome, decoded: Outcome) {
    bytes.withUnsafeBytes { raw in
      let read: Outcome
      do { read = .event(try Event.read(raw)) } catch { read = .error("\(error)") }
      let decoded: Outcome
      do { decoded = .event(try Event.decode(raw)) } catch { decoded = .error("\(error)") }
      return (read, decoded)
    }
  }

  /// Records of every action type, with every envelope field and every kind of answer.
  static let records: [[UInt8]] = {
    var events: [Event] = []
    for (i, action) in SampleActions.all.enumerated() {
      events.append(Event(seq: i + 1, at: at, origin: .jsonl, action: action))
    }
    events.append(
      Event(
        seq: 90, at: at, origin: .runner, cause: 89, id: ["b": 1, "a": [nil, "x"]],
        idempotencyKey: "k-1",
        action: .messageReceived(
          .init(
            query: "hi", answers: SampleActions.everyAnswer, skill: "s", anonymous: true))))
    events.append(
      Event(
        seq: 91, at: at, origin: .jsonl, id: 4.5,
        action: .sendMessage(.init(query: "caf\u{e9} \"q\"\n", language: "de"))))
    // Ids as JSON-lines callers give them: a string, an integer.
    events.append(
      Event(
        seq: 92, at: at, origin: .runner, cause: 91, id: "q91", action: .search(.init(query: "x"))))
    events.append(Event(seq: 93, at: at, origin: .jsonl, id: 93, action: .logout))
    return events.map { $0.encoded() }
  }()

  /// Records as other writers (older versions, hand edits) may have written them.
  static let foreign: [String] = [
    #"{"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"sendMessage","payload":{"query":"hi"}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"sendMessage","payload":{"query":"hi","language":null}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"sendMessage","payload":{"language":"en","query":"hi","extra":1}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"sendMessage","payload":{"query":"hi","language":null,"language":"en"}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"sendMessage","payload":{"query":null}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"sendMessage","payload":null}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"sendMessage"}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout"}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","payload":{},"type":"logout"}"#,
    #"{"v":2.0,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout"}"#,
    #"{"v":3,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout"}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21 10:00:00","origin":"cli","type":"logout","future":[1]}"#,
    #"{"v":2,"seq":1,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout"}"#,
    #"{"v":2,"se\u0071":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout"}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00\u005a","origin":"cli","type":"logout"}"#,
    #"{"v":2,"seq":1,"at":"yesterday","origin":"cli","type":"logout"}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"nothing"}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","cause":null,"id":null,"idempotencyKey":null,"type":"logout"}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":"","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":"caf\u00e9","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":"café","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":"a\#tb","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":"a\"b","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":0,"type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":-1,"type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":123456789012345678901,"type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":1.5,"type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":"q1","idempotencyKey":"k","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":"q1","id":"q2","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"jsonl","id":["q"],"type":"logout","payload":{}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","cause":1,"type":"messageReceived","payload":{"answers":[{"expression":"x","type":"answer"},{"type":"answer","expression":"y","mood":null,"extra":2}],"query":"q","skill":null,"anonymous":null}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"answer","expression":"x","expression":"y"}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"answer"}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[7]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[],"planned":[{"delay":5,"answers":[]}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"map","latitude":"$lat$","raw":{}}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"table","columns":[{"key":"a","header":"A","width":3}],"rows":[]}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"table","columns":[{"key":1,"header":"A"}],"rows":[["x"]]}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"table","columns":[{"header":"A","key":"a"}],"rows":[["x",{"b":[1,null]}],[]]}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"table","columns":[],"rows":["x"]}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"table","rows":[]}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"table","columns":[],"rows":[],"columns":[]}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"rss","items":[{"title":"t","description":null,"link":"l"},{}]}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"rss","items":[{"title":5}]}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"rss","items":[{"title":"t","image":"i"}]}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"rss","items":[],"count":3}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"rss","items":{}}]}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[{"type":"rss"}]}}"#,
    // Payloads read from their bytes by the codec's field rules, or left to the tree.
    #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"submitRating","payload":{"stars":4,"skill":"S","group":"G","language":null}}"#,
    #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"submitRating","payload":{"group":"G","skill":"S","stars":4,"note":{"a":[1]}}}"#,
    #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"submitRating","payload":{"group":"G","skill":"S","stars":"4"}}"#,
    #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"submitRating","payload":{"group":"G","skill":"S","stars":4,"stars":5}}"#,
    #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"submitRating","payload":{"group":"G","skill":"S","st\u0061rs":4}}"#,
    #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"submitRating","payload":{"group":"G","skill":"S","stars":4,"language":tru}}"#,
    #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"submitRating","payload":[]}"#,
    #"{"v":2,"seq":4,"at":"2026-11-21T10:00:00Z","origin":"runner","cause":3,"type":"ratingSubmitted","payload":{"group":"G","skill":"S","stars":4,"ratings":{"oneStar":0,"twoStar":0,"threeStar":0,"fourStar":1,"fiveStar":0,"average":"4","total":1}}}"#,
    #"{"v":2,"seq":5,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"changeSettings","payload":{"settings":{"theme":"dark","theme":"light"}}}"#,
    #"{"v":2,"seq":5,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"changeSettings","payload":{"settings":{"theme":[]}}}"#,
    #"{"v":2,"seq":6,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"websearchLoaded","payload":{"query":"q","results":[{"title":"t","link":"l"},"x"]}}"#,
    #"{"v":2,"seq":6,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"skillLoaded","payload":{"skill":{"tag":"T","group":"G","examples":["a",2]}}}"#,
    #"{"v":2,"seq":6,"at":"2026-11-21T10:00:00Z","origin":"runner","type":"skillLoaded","payload":{"skill":{"tag":"T","group":"G","rating":{"oneStar":1}}}}"#,
    // Envelopes close to the way this writer writes them, which the reader recognizes by their
    // bytes, but not quite.
    #"{"v":2,"seq":01,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":0,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":123456789012345678,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":12345678901234567,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1.5,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1e2,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"robot","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cl\u0069","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logo\u0075t","payload":{}}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{},"extra":1}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{},"type":"logout"}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{},"seq":2}"#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{}} "#,
    #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{}}x"#,
    #"{"v":2, "seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":{}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","cause":01,"type":"loggedOut","payload":{}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","cause":1,"type":"loggedOut","payload":{}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","cause":1,"cause":1,"type":"loggedOut","payload":{}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","cause":-1,"type":"loggedOut","payload":{}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00Z","origin":"runner","cause":1,"type":"sendMessage","payload":{"query":"hi"},"payload":{"query":"hi"}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00.5Z","origin":"runner","cause":1,"type":"sendMessage","payload":{"query":"hi"}}"#,
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00.500+01:00","origin":"runner","cause":1,"type":"sendMessage","payload":{"query":"hi"}}"#,
    #"[1]"#, "", "{", #"{"v":2}"#,
  ]

  /// A result as this writer writes it: with a cause, without an id or idempotency key.
  static let result = Event(
    seq: 5, at: at, origin: .runner, cause: 4,
    action: .messageReceived(
      .init(query: "hi", answers: [.answer(expression: "hello", language: "en", mood: nil)]))
  )
  .encoded()

  @Test func readsEveryRecordAsTheTreeDecoderDoes() {
    for record in Self.records + Self.foreign.map({ Array($0.utf8) }) {
      let (read, decoded) = Self.outcomes(record)
      #expect(read == decoded, "\(String(decoding: record, as: UTF8.self))")
    }
  }

  /// Replay reads with a string cache: every record, read twice through one cache (so that the
  /// second time its strings come from the cache), gives what the tree decoder gives.
  @Test func readsEveryRecordThroughAStringCacheAsTheTreeDecoderDoes() {
    let cache = JSONStringCache()
    let long =
      #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00Z","origin":"runner","cause":1,"type":"messageReceived","payload":{"query":"a query of more than sixteen bytes","answers":[{"type":"answer","expression":"I don't know the answer to that question.","language":"en","mood":"sabta"},{"type":"websearch","query":"a query of more than sixteen bytes"}],"skill":"/susi_server/conf/os_skills/system/en/en_0090_fail.json"}}"#
    let records = Self.records + (Self.foreign + [long]).map { Array($0.utf8) }
    for _ in 0..<2 {
      for record in records {
        let read: Outcome = record.withUnsafeBytes { raw in
          do { return .event(try Event.read(raw, strings: cache)) } catch {
            return .error("\(error)")
          }
        }
        #expect(read == Self.outcomes(record).decoded, "\(String(decoding: record, as: UTF8.self))")
      }
    }
  }

  @Test func readsTheRecordsTheWriterWritesWithoutFallingBackToAnError() {
    for record in Self.records + [Self.result] {
      guard case .event = Self.outcomes(record).read else {
        Issue.record("not read: \(String(decoding: record, as: UTF8.self))")
        continue
      }
    }
  }

  /// Every record cut short, and with each byte in turn replaced by characters that break JSON
  /// in different ways: the two decoders agree on each.
  @Test func agreesWithTheTreeDecoderOnDamagedRecords() {
    let samples =
      Self.records.filter { $0.count < 400 }.prefix(12) + [Self.records.last!, Self.result]
    for record in samples {
      for cut in 0..<record.count {
        let (read, decoded) = Self.outcomes(Array(record[..<cut]))
        #expect(read == decoded)
      }
      for index in record.indices {
        for replacement in [UInt8(ascii: "\""), UInt8(ascii: "1"), UInt8(ascii: "}"), 0xFF] {
          var damaged = record
          damaged[index] = replacement
          let (read, decoded) = Self.outcomes(damaged)
          #expect(read == decoded, "\(String(decoding: damaged, as: UTF8.self))")
        }
      }
    }
  }

  @Test func readsEveryExampleLogAsTheTreeDecoderDoes() throws {
    let events = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Events")
    let logs = try FileManager.default.contentsOfDirectory(atPath: events.path)
      .filter { $0.hasSuffix(".jsonl") }
    #expect(!logs.isEmpty)
    for log in logs {
      let text = try String(contentsOf: events.appendingPathComponent(log), encoding: .utf8)
      for line in text.split(separator: "\n") {
        var bytes = Array(line.utf8)
        // A version 2 line's object is the line without its crc member.
        if let crc = line.range(of: #","crc":""#) {
          bytes = Array(line[..<crc.lowerBound].utf8) + [UInt8(ascii: "}")]
        }
        let (read, decoded) = Self.outcomes(bytes)
        #expect(read == decoded, "\(log): \(line)")
        if case .error(let message) = read { Issue.record("\(log): \(message)") }
      }
    }
  }
}
