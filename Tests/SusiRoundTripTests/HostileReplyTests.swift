import Foundation
import SusiCore
import SusiEventLog
import SusiHTTPTesting
import SusiJSON
import SusiRoundTrip
import SusiStore
import Testing

/// Replies a hostile (or merely broken) server can send, each of which once made the log
/// unreadable or a process trap; now each keeps the record property `RecordRoundTrip` checks.
@Suite struct HostileReplyTests {
  /// A fresh folder, removed by the caller.
  static func folder() throws -> String {
    let path = TestScratch.root.appendingPathComponent(
      "susi-roundtrip-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// Checks the property for `reply` and returns the events it led to.
  @discardableResult
  static func holds(_ reply: String, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> [Event]
  {
    let folder = try folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let events = RecordRoundTrip.events(for: Array(reply.utf8))
    do {
      try RecordRoundTrip.check(events: events, in: folder)
    } catch {
      Issue.record("\(error)", sourceLocation: sourceLocation)
    }
    return events
  }

  /// A chat reply of one answer with `actions` over `data`.
  static func reply(_ actions: String, data: String = "[]") -> String {
    #"{"query":"q","answers":[{"data":\#(data),"actions":\#(actions)}]}"#
  }

  /// The answers of the `messageReceived` among `events`.
  static func answers(_ events: [Event]) -> [AnswerAction] {
    for event in events {
      if case .messageReceived(let message) = event.action { return message.answers }
    }
    return []
  }

  // MARK: Known types whose fields cannot be read

  @Test(arguments: [
    (#"{"type":"map","latitude":"$lat$"}"#, "map"),
    (#"{"type":"answer"}"#, "answer"),
    (#"{"type":"anchor","text":"t"}"#, "anchor"),
    (#"{"type":"websearch"}"#, "websearch"),
    (#"{"type":"audio_volume","volume":"loud"}"#, "audio_volume"),
    (#"{"type":"unknown","serverType":"map"}"#, "unknown"),
  ])
  func aKnownTypeThatCannotBeReadIsKeptWholeAndReadsBack(action: String, type: String) throws {
    let events = try Self.holds(Self.reply("[\(action)]"))
    let raw = try JSONParser.parse(action)
    #expect(Self.answers(events) == [.unknown(type: type, raw: raw)])
    let line = String(decoding: events[1].encoded(), as: UTF8.self)
    #expect(line.contains(#"{"type":"unknown","serverType":"\#(type)","raw":"#))
  }

  /// The line the previous release wrote for an unreadable map: the known name, then `raw`.
  static let oldLine =
    #"{"v":2,"seq":2,"at":"2026-11-21T10:00:00.000Z","origin":"runner","cause":1,"type":"messageReceived","payload":{"query":"q","answers":[{"type":"map","raw":{"type":"map","latitude":"$lat$"}},{"type":"answer","raw":{"type":"answer"}},{"type":"anchor","raw":{"type":"anchor","text":"t"}}]}}"#

  @Test func aLogWrittenByThePreviousReleaseStillOpensAndReplays() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let log = folder + "/events.jsonl"
    let writer = try EventLogWriter(path: log, options: .init(fsync: .never))
    let at = Timestamp(rfc3339: "2026-11-21T10:00:00Z")!
    try writer.append(
      Event(seq: 1, at: at, origin: .cli, action: .sendMessage(.init(query: "q"))).encoded())
    try writer.append(Array(Self.oldLine.utf8))
    try writer.close()

    var recovered = Recovered()
    try LogReplay.run(path: log, into: &recovered)
    #expect(recovered.lastSeq == 2)
    #expect(
      recovered.state.transcript.last?.answers == [
        .unknown(type: "map", raw: ["type": "map", "latitude": "$lat$"]),
        .unknown(type: "answer", raw: ["type": "answer"]),
        .unknown(type: "anchor", raw: ["type": "anchor", "text": "t"]),
      ])
    // And it is written the new way from then on: a snapshot of it reads back.
    let opened = try LogRecovery.open(path: log, fsync: .never, environment: [:])
    #expect(opened.recovered.state == recovered.state)
    try opened.writer.close()
  }

  @Test func aKnownTypeWithoutRawIsStillRefusedAsCorrupt() {
    let line = Self.oldLine.replacingOccurrences(
      of: #","raw":{"type":"anchor","text":"t"}"#, with: "")
    #expect(throws: EventDecodingError.self) { try Event.decode(Array(line.utf8)) }
  }

  // MARK: Depth

  /// `depth` nested arrays around `0`.
  static func nested(_ depth: Int) -> String {
    String(repeating: "[", count: depth) + "0" + String(repeating: "]", count: depth)
  }

  /// Table cells, actions kept whole and planned ones, nested from well inside the limit for
  /// replies to the parser's own limit: each reply is either refused or kept readable.
  @Test(arguments: [
    200, Nesting.outside - 6, Nesting.outside - 5, Nesting.outside - 4, 245, 246,
    249, 250, 251, 252, 255,
  ])
  func deepValuesEitherReadBackOrAreRefused(depth: Int) throws {
    let cell = Self.nested(depth)
    try Self.holds(Self.reply(#"[{"type":"table"}]"#, data: #"[{"c":\#(cell)}]"#))
    try Self.holds(Self.reply(#"[{"type":"table","plan_delay":10}]"#, data: #"[{"c":\#(cell)}]"#))
    try Self.holds(Self.reply(#"[{"type":"x","v":\#(cell)}]"#))
    try Self.holds(Self.reply(#"[{"type":"x","plan_delay":5,"v":\#(cell)}]"#))
    try Self.holds(#"{"type":"sendMessage","payload":{"query":"q"},"id":\#(cell)}"#)
  }

  @Test func aDeepLineWrittenByThePreviousReleaseStillOpensAndSnapshots() throws {
    // That release read replies 256 deep: a table cell of a planned answer 251 deep made a
    // line nested 259 levels (payload, planned, answer, answers, action, rows, row).
    let line =
      #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[],"planned":[{"delay":1000,"answers":[{"type":"table","columns":[{"key":"c","header":"c"}],"rows":[[\#(Self.nested(251))]]}]}]}}"#
    let event = try Event.decode(Array(line.utf8))
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try RecordRoundTrip.check(events: [event], in: folder)
  }

  @Test func aReplyNestedPastTheLimitForRepliesIsRefused() throws {
    // Reply, answers, answer, data, row: the cell starts five levels down.
    let deepest = Nesting.outside - 5
    let fits = try Self.holds(
      Self.reply(#"[{"type":"table"}]"#, data: #"[{"c":\#(Self.nested(deepest))}]"#))
    guard case .messageReceived = fits[1].action else {
      Issue.record("refused: \(fits[1].action)")
      return
    }
    let deeper = try Self.holds(
      Self.reply(#"[{"type":"table"}]"#, data: #"[{"c":\#(Self.nested(deepest + 1))}]"#))
    guard case .requestFailed(let failure) = deeper[1].action else {
      Issue.record("accepted: \(deeper[1].action)")
      return
    }
    #expect(failure.error.kind == .badResponse)
    #expect(failure.error.message.contains("nesting too deep"))
  }

  // MARK: Numbers and dates

  @Test func aHugePlanDelayIsCappedAndReplays() throws {
    let events = try Self.holds(
      Self.reply(#"[{"type":"answer","expression":"later","plan_delay":9223372036854775807}]"#))
    guard case .messageReceived(let message) = events[1].action else {
      Issue.record("\(events[1].action)")
      return
    }
    #expect(message.planned.map(\.delayMilliseconds) == [PlannedAnswer.maximumDelayMilliseconds])
    // Delivered a year later, as the third event.
    #expect(
      events[2].at.milliseconds(since: events[1].at)
        == Int64(PlannedAnswer.maximumDelayMilliseconds))
  }

  @Test func aHugeDelayInALogWrittenBeforeTheCapStillReplays() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let log = folder + "/events.jsonl"
    let writer = try EventLogWriter(path: log, options: .init(fsync: .never))
    try writer.append(
      Array(
        #"{"v":2,"seq":1,"at":"2026-11-21T10:00:00.000Z","origin":"runner","type":"messageReceived","payload":{"query":"q","answers":[],"planned":[{"delay":9223372036854775807,"answers":[]}]}}"#
          .utf8))
    try writer.close()
    var recovered = Recovered()
    try LogReplay.run(path: log, into: &recovered)
    #expect(
      recovered.state.inFlight[1]?.due
        == Timestamp(rfc3339: "2027-11-21T10:00:00Z"))
  }

  @Test func datesBeforeYearZeroAndAfter9999ReadBack() throws {
    let memory = #"""
      {"cognitions":[
        {"query":"a","answers":[],"query_date":"0000-01-01T00:00:00+23:59","answer_date":9223372036854775807},
        {"query":"b","answers":[],"query_date":"9999-12-31T23:59:59.999-23:59"}
      ]}
      """#
    let events = try Self.holds(memory)
    guard case .historyLoaded(let history) = events[events.count - 3].action else {
      Issue.record("\(events.last!.action)")
      return
    }
    #expect(
      history.entries.map { $0.queryDate?.rfc3339 } == [
        "-000001-12-31T00:01:00.000Z", "+010000-01-01T23:58:59.999Z",
      ])
    #expect(history.entries[0].answerDate == .maximum)
  }
}
