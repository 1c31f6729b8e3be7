public import SusiCore
import SusiCoreTesting
import SusiJSON
public import Testing

@Suite struct EventCodecTests {
  static let at = Timestamp(milliseconds: 1_795_255_200_123)  // 2026-11-21T10:00:00.123Z
  static let rating = Action.submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 4))

  static let envelopes: [Event] = [
    Event(seq: 1, at: at, origin: .cli, action: rating),
    Event(seq: 2, at: at, origin: .runner, cause: 1, action: .actionRejected(.init(reason: "no"))),
    Event(seq: 3, at: at, origin: .jsonl, id: "req-1", action: .logout),
    Event(seq: 4, at: at, origin: .jsonl, id: 42, action: .syncSettings),
    Event(seq: 5, at: at, origin: .jsonl, id: 4.5, action: .loadHistory(.init())),
    Event(seq: 6, at: at, origin: .jsonl, id: true, action: .loadGroups(.init())),
    Event(
      seq: 7, at: at, origin: .jsonl, id: ["b": 1, "a": [nil, "x"]], action: .loadSkills(.init())),
    Event(seq: 8, at: at, origin: .jsonl, id: [1, "two"], action: .search(.init(query: "q"))),
    Event(seq: 9, at: at, origin: .webhook, idempotencyKey: "8e03978e-40d5-43e8", action: rating),
    Event(
      seq: 10, at: Timestamp(milliseconds: -1), origin: .runner, cause: 9, id: "req-9",
      idempotencyKey: "k",
      action: .ratingSubmitted(
        .init(group: "Knowledge", skill: "Synonyms", stars: 4, ratings: Fixture.ratings))),
  ]

  private func text(_ event: Event) -> String { String(decoding: event.encoded(), as: UTF8.self) }

  private func decode(_ text: String) throws -> Event { try Event.decode(Array(text.utf8)) }

  /// The message decoding `text` fails with, or nil when it decodes.
  private func problem(_ text: String) -> String? {
    do {
      let event = try decode(text)
      Issue.record("decoded as \(event.action.type)")
      return nil
    } catch {
      return "\(error)"
    }
  }

  /// Replay moves every event it reads through the reader and the reducer: a payload that holds
  /// a whole skill is boxed, so that no action costs a copy of hundreds of bytes.
  @Test func anEventIsSmallToCopy() {
    #expect(MemoryLayout<Action>.size <= 96)
    #expect(MemoryLayout<Event>.size <= 192)
  }

  @Test func writesTheEnvelopeFieldsFirstInAFixedOrder() {
    let event = Event(
      seq: 8, at: Self.at, origin: .runner, cause: 7, id: ["b": 1, "a": [true]],
      idempotencyKey: "k-1",
      action: .userRatingLoaded(.init(group: "G", skill: "S", stars: 3)))
    #expect(
      text(event)
        == #"{"v":2,"seq":8,"at":"2026-11-21T10:00:00.123Z","origin":"runner","cause":7,"id":{"b":1,"a":[true]},"idempotencyKey":"k-1","type":"userRatingLoaded","payload":{"group":"G","skill":"S","stars":3}}"#
    )
  }

  @Test func leavesOutAbsentEnvelopeFields() {
    #expect(
      text(Event(seq: 7, at: Self.at, origin: .jsonl, action: Self.rating))
        == #"{"v":2,"seq":7,"at":"2026-11-21T10:00:00.123Z","origin":"jsonl","type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":4}}"#
    )
  }

  @Test(arguments: envelopes)
  func everyEnvelopeSurvivesEncodingAndDecoding(event: Event) throws {
    #expect(try Event.decode(event.encoded()) == event)
  }

  @Test(arguments: envelopes)
  func reencodingADecodedEventGivesIdenticalBytes(event: Event) throws {
    let bytes = event.encoded()
    #expect(try Event.decode(bytes).encoded() == bytes)
  }

  @Test func everyActionTypeSurvivesTheEnvelope() throws {
    for (i, action) in SampleActions.all.enumerated() {
      let event = Event(seq: i + 1, at: Self.at, origin: .test, cause: i, action: action)
      let bytes = event.encoded()
      let decoded = try Event.decode(bytes)
      #expect(decoded.action == SampleActions.redacted(action), "\(action.type)")
      #expect(decoded.encoded() == bytes, "\(action.type)")
    }
  }

  @Test func decodesFromBytesBuffersAndValuesAlike() throws {
    let event = Self.envelopes[9]
    let bytes = event.encoded()
    #expect(try bytes.withUnsafeBytes { try Event.decode($0) } == event)
    #expect(try Event.decode(JSONParser.parse(bytes)) == event)
  }

  @Test func readsAVersionOneRecordWithoutAVersionField() throws {
    let line =
      #"{"seq":7,"at":"2026-11-21T10:00:00.123Z","origin":"jsonl","type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":4}}"#
    let event = try decode(line)
    #expect(event == Event(seq: 7, at: Self.at, origin: .jsonl, action: Self.rating))
    // It is written back in the current format.
    #expect(text(event).hasPrefix(#"{"v":2,"seq":7,"#))
    #expect(
      try decode(
        #"{"v":1,"seq":7,"at":"2026-11-21T10:00:00.123Z","origin":"jsonl","type":"logout"}"#
      ).action == .logout)
  }

  @Test func readsKnownOriginsAndErrorKindsAsTheirNamedValues() throws {
    let event = try decode(
      #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00.123Z","origin":"store","cause":2,"type":"requestFailed","payload":{"cause":2,"error":{"kind":"interrupted","message":"m"}}}"#
    )
    #expect(event.origin == .store)
    #expect(
      event.action
        == .requestFailed(.init(cause: 2, error: .init(kind: .interrupted, message: "m"))))
  }

  @Test func keepsAnOriginAndAnErrorKindItDoesNotKnowByteForByte() throws {
    let line =
      #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00.123Z","origin":"webhook:k1","cause":2,"type":"requestFailed","payload":{"cause":2,"error":{"kind":"quotaExceeded","status":429,"message":"slow down"}}}"#
    let event = try decode(line)
    #expect(event.origin == EventOrigin(rawValue: "webhook:k1"))
    let error = RequestError(
      kind: RequestErrorKind(rawValue: "quotaExceeded"), status: 429, message: "slow down")
    #expect(event.action == .requestFailed(.init(cause: 2, error: error)))
    #expect(text(event) == line)
  }

  @Test func aRequestIdRidesInTheOriginAndBothReadersReadItBack() throws {
    let event = Event(
      seq: 4, at: Self.at, origin: EventOrigin.webhook.carried(by: "5f0e-17"), action: Self.rating)
    let line = text(event)
    #expect(line.contains(#""origin":"webhook","requestId":"5f0e-17","type""#))
    #expect(try decode(line) == event)
    let bytes = event.encoded()
    #expect(try bytes.withUnsafeBytes { try Event.read($0) } == event)
    #expect(try decode(line).origin.isSender(.webhook))
    #expect(try decode(line).origin != .webhook)
  }

  @Test func anEventWithoutARequestIdIsWrittenAsBeforeAndAnOldLineReadsWithNone() throws {
    let line =
      #"{"v":2,"seq":7,"at":"2026-11-21T10:00:00.123Z","origin":"webhook","type":"logout","payload":{}}"#
    let event = try decode(line)
    #expect(event.origin == .webhook)
    #expect(event.origin.requestID == nil)
    #expect(text(event) == line)
    let nulled = try decode(
      #"{"v":2,"seq":7,"at":"2026-11-21T10:00:00.123Z","origin":"webhook","requestId":null,"type":"logout"}"#
    )
    #expect(nulled == event)
  }

  @Test func aRequestIdThatIsNotAStringIsRefusedByBothReaders() {
    let line =
      #"{"v":2,"seq":7,"at":"2026-11-21T10:00:00.123Z","origin":"webhook","requestId":7,"type":"logout"}"#
    #expect(throws: EventDecodingError("requestId: expected a string, found a number")) {
      try decode(line)
    }
    #expect(throws: EventDecodingError.self) {
      try Array(line.utf8).withUnsafeBytes { try Event.read($0) }
    }
  }

  /// The TLS failure kinds are written and read back as the named values, byte for byte.
  @Test(arguments: [
    RequestErrorKind.certificateExpired, .certificateNotYetValid, .certificateUnknownIssuer,
    .certificateHostMismatch, .tlsHandshakeFailed, .tlsNotSpoken,
  ])
  func tlsFailureKindsRoundTrip(_ kind: RequestErrorKind) throws {
    let line =
      #"{"v":2,"seq":3,"at":"2026-11-21T10:00:00.123Z","origin":"runner","cause":2,"type":"requestFailed","payload":{"cause":2,"error":{"kind":"\#(kind.rawValue)","message":"m"}}}"#
    let event = try decode(line)
    #expect(event.action == .requestFailed(.init(cause: 2, error: .init(kind: kind, message: "m"))))
    #expect(kind.isTLSFailure)
    #expect(text(event) == line)
  }

  @Test func refusesARecordFromANewerFormatWithAClearMessage() {
    #expect(
      problem(
        #"{"v":3,"seq":7,"at":"2026-11-21T10:00:00Z","origin":"jsonl","type":"teleport","payload":{"to":"mars"}}"#
      )
        == "this record is in log format 3, newer than this susi understands (2); use a newer susi")
  }

  @Test(arguments: [
    (
      #"{"v":0,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout"}"#,
      "unknown log format version 0"
    ),
    (
      #"{"v":-1,"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout"}"#,
      "unknown log format version -1"
    ),
    (
      #"{"v":"2","seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout"}"#,
      "v: expected an integer, found a string"
    ),
    (#"{"seq":1,"origin":"cli","type":"logout"}"#, "at: missing"),
    (
      #"{"seq":1,"at":"yesterday","origin":"cli","type":"logout"}"#,
      "at: 'yesterday' is not an RFC 3339 date-time"
    ),
    (
      #"{"seq":1,"at":1795255200,"origin":"cli","type":"logout"}"#,
      "at: expected a string, found a number"
    ),
    (#"{"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli"}"#, "type: missing"),
    (#"{"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout"}"#, "seq: missing"),
    (
      #"{"seq":"1","at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout"}"#,
      "seq: expected an integer, found a string"
    ),
    (#"{"seq":1,"at":"2026-11-21T10:00:00Z","type":"logout"}"#, "origin: missing"),
    (
      #"{"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","cause":"x","type":"logout"}"#,
      "cause: expected an integer, found a string"
    ),
    (
      #"{"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","idempotencyKey":5,"type":"logout"}"#,
      "idempotencyKey: expected a string, found a number"
    ),
    (
      #"{"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"launchRocket"}"#,
      "unknown action type 'launchRocket'"
    ),
    (
      #"{"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"submitRating","payload":{"group":"G","skill":"S","stars":"4"}}"#,
      "invalid payload: payload.stars: expected an integer, found a string"
    ),
    (
      #"{"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"logout","payload":[]}"#,
      "invalid payload: payload: expected an object, found an array"
    ),
    ("[1,2]", "a record must be a JSON object"),
    (#""just text""#, "a record must be a JSON object"),
  ])
  func explainsWhyARecordIsNotAnEvent(record: String, message: String) {
    #expect(problem(record) == message)
  }

  @Test func refusesBytesThatAreNotJSON() {
    #expect(problem(#"{"seq":1,"at":"#) == "not JSON: unexpected end of input at byte 14")
    #expect(problem("") == "not JSON: unexpected end of input at byte 0")
    // A number JSON cannot write back would turn into null in the log; it is refused on the way in.
    #expect(
      problem(
        #"{"seq":1,"at":"2026-11-21T10:00:00Z","origin":"cli","type":"changeSettings","payload":{"settings":{"speechRate":1e400}}}"#
      )
        == "not JSON: number out of range at byte 112")
  }

  @Test func aNullIDIsTheSameAsNoID() throws {
    let event = try decode(
      #"{"seq":1,"at":"2026-11-21T10:00:00Z","origin":"jsonl","id":null,"type":"logout"}"#)
    #expect(event.id == nil)
  }

  @Test func acceptsEveryTimestampFormTheParserAccepts() throws {
    let event = try decode(
      #"{"seq":1,"at":"2026-11-21 11:00:00.123456+01:00","origin":"cli","type":"logout"}"#)
    #expect(event.at == Self.at)
  }
}

extension Event: CustomTestStringConvertible {
  public var testDescription: String { "#\(seq) \(action.type)" }
}
