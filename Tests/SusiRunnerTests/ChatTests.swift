import SusiClock
import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiJSON
import SusiRunner
import SusiStore
import SusiTesting
import Testing

@testable import SusiRunner

/// `chat.json` and `memory.json`: requests, both envelopes and every answer action type.
@Suite(.hangLimit)
struct ChatTests {
  static let chat = Effect.chat(server: "embedded", query: "flip a coin", language: nil)

  /// A current-format envelope with one answer made of `actions` over `data`.
  static func envelope(
    actions: String, data: String = "[]", identity: String = #""anonymous": true"#
  ) -> String {
    """
    {
      "query": "flip a coin",
      "answers": [{
        "data": \(data),
        "metadata": {"count": 1},
        "actions": \(actions),
        "skills": ["/susi_skill_data/models/general/Games, Trivia and Accessories/en/Flip a coin.txt"]
      }],
      "query_date": "2020-09-07T21:16:14.123Z",
      "query_language": "en",
      "answer_date": "2020-09-07T21:16:14.135Z",
      "answer_time": 12,
      "client_id": "aG9zdF8yMDMuMC4xMTMuN18xYTJiM2M0ZA==",
      "session": {"identity": {"type": "host", "name": "203.0.113.7_1a2b3c4d", \(identity)}}
    }
    """
  }

  static func answers(_ actions: String, data: String = "[]") async -> [AnswerAction] {
    let harness = Harness { _ in .json(Self.envelope(actions: actions, data: data)) }
    guard case .messageReceived(let message) = await harness.run(Self.chat) else { return [] }
    return message.answers
  }

  static let skillPath =
    "/susi_skill_data/models/general/Games, Trivia and Accessories/en/Flip a coin.txt"

  @Test func aQueryCarriesTheTimezoneLanguageAndDevice() async {
    let harness = Harness { _ in .json(Self.envelope(actions: "[]")) }
    _ = await harness.run(Self.chat)
    _ = await harness.run(
      .chat(server: "embedded", query: "Wie spät ist es?", language: "fr"), cause: 2)
    let first = harness.transport.requests[0]
    #expect(first.method == .get)
    #expect(first.path == "/susi/chat.json")
    #expect(
      first.parameters == [
        "q": "flip a coin", "timezoneOffset": "-60", "language": "de", "device_type": "Linux",
      ])
    #expect(first.query == "q=flip%20a%20coin&timezoneOffset=-60&language=de&device_type=Linux")
    #expect(harness.transport.requests[1].parameters["language"] == "fr")
    #expect(harness.transport.requests[1].parameters["q"] == "Wie spät ist es?")
  }

  @Test func aLoggedInQueryCarriesTheTokenUnderItsUnderscoreName() async {
    let harness = Harness { request in
      if request.path == "/aaa/login.json" {
        return .json(#"{"accepted":true,"access_token":"tok-123","valid_seconds":60}"#)
      }
      return .json(Self.envelope(actions: "[]", identity: #""anonymous": false"#))
    }
    _ = await harness.run(
      .login(server: "embedded", email: "u@example.com", password: Secret("pw"), validSeconds: nil))
    let result = await harness.run(Self.chat, cause: 2)
    #expect(harness.transport.requests[1].parameters["access_token"] == "tok-123")
    #expect(harness.transport.requests[1].parameters["access-token"] == nil)
    #expect(
      result
        == .messageReceived(
          .init(query: "flip a coin", answers: [], skill: Self.skillPath, anonymous: false)))
  }

  @Test func anAnonymousReplyWhileLoggedInIsFlagged() async {
    let harness = Harness { request in
      if request.path == "/aaa/login.json" {
        return .json(#"{"accepted":true,"access_token":"tok-123","valid_seconds":60}"#)
      }
      return .json(Self.envelope(actions: #"[{"type":"answer","expression":"heads"}]"#))
    }
    _ = await harness.run(
      .login(server: "embedded", email: "u@example.com", password: Secret("pw"), validSeconds: nil))
    guard case .messageReceived(let message) = await harness.run(Self.chat, cause: 2) else {
      Issue.record("expected an answer")
      return
    }
    #expect(message.anonymous == true)
    // After expiry the token is no longer sent, and the anonymous answer still ends the session.
    await harness.clock.advance(by: .milliseconds(61_000))
    guard case .messageReceived(let later) = await harness.run(Self.chat, cause: 3) else { return }
    #expect(harness.transport.requests[2].parameters["access_token"] == nil)
    #expect(later.anonymous == true)
  }

  @Test func anAnonymousReplyWithoutALoginIsNotFlagged() async {
    let harness = Harness { _ in
      .json(Self.envelope(actions: #"[{"type":"answer","expression":"tails"}]"#))
    }
    #expect(
      await harness.run(Self.chat)
        == .messageReceived(
          .init(
            query: "flip a coin", answers: [.answer(expression: "tails", language: nil, mood: nil)],
            skill: Self.skillPath)))
  }

  @Test func theOlderEnvelopeIsRead() async {
    let old = """
      {
       "query": "hi susi",
       "count": 1,
       "client_id": "aG9zdF8xNjIuMTU4LjE2NS4zMF9iZTk0MGE4Yg==",
       "query_date": "2018-05-14T13:22:18.473Z",
       "answers": [{
         "data": [{
           "0": "hi susi", "1": "susi", "token_original": "hi", "timezoneOffset": "-330", "language": "en",
           "answer": "Hi! I'm SUSI", "skill": "/susi_server/conf/susi/en_0700_ai_play.json"
         }],
         "metadata": {"count": 1},
         "actions": [{"type": "answer", "language": "en", "expression": "Hi! I'm SUSI"}],
         "skills": ["/susi_server/conf/susi/en_0700_ai_play.json"],
         "persona": {}
       }],
       "answer_date": "2018-05-14T13:22:18.479Z",
       "answer_time": 6,
       "language": "en",
       "session": {"identity": {"type": "host", "name": "162.158.165.30_be940a8b", "anonymous": true}}
      }
      """
    let harness = Harness { _ in .json(old) }
    #expect(
      await harness.run(.chat(server: "embedded", query: "hi susi", language: "en"))
        == .messageReceived(
          .init(
            query: "hi susi",
            answers: [.answer(expression: "Hi! I'm SUSI", language: "en", mood: nil)],
            skill: "/susi_server/conf/susi/en_0700_ai_play.json")))
  }

  @Test func aReplyWithoutAnswersIsAnEmptyAnswer() async {
    let harness = Harness { _ in
      .json(
        #"{"query":"xyzzy","query_date":"2020-09-07T21:16:14.123Z","session":{"identity":{"anonymous":true}}}"#
      )
    }
    #expect(await harness.run(Self.chat) == .messageReceived(.init(query: "xyzzy", answers: [])))
  }

  @Test func answersOfTheWrongShapeAreABadResponse() async {
    let harness = Harness { _ in .json(#"{"query":"q","answers":"none"}"#) }
    #expect(await harness.run(Self.chat).failure?.kind == .badResponse)
  }

  @Test func everyActionTypeIsDecodedInOrder() async {
    let actions = """
      [
        {"type": "answer", "language": "en", "line": 8, "expression": "Here you go", "mood": "sabta"},
        {"type": "table", "columns": {"title": "Title", "byline": "Author/s"}, "count": -1},
        {"type": "rss", "title": "title", "description": "byline", "link": "url", "count": 1},
        {"type": "websearch", "query": "berlin", "count": 3},
        {"type": "anchor", "link": "https://susi.ai", "text": "SUSI"},
        {"type": "map", "latitude": "52.52", "longitude": "13.405", "zoom": "13"},
        {"type": "piechart", "total": 100, "key": "title", "value": "share", "unit": "%"},
        {"type": "video_play", "identifier_type": "youtube", "identifier": "dQw4w9WgXcQ"},
        {"type": "audio_play", "identifier_type": "url", "identifier": "https://example.com/a.mp3"},
        {"type": "audio_volume", "volume": "70"},
        {"type": "image_show", "url": "https://example.com/cat.png"},
        {"type": "timer_set", "time": "1599513374"},
        {"type": "stop"}, {"type": "pause"}, {"type": "resume"}, {"type": "restart"},
        {"type": "previous"}, {"type": "next"}, {"type": "shuffle"}, {"type": "timer_reset"},
        {"type": "emotion", "emotion": "happy"}
      ]
      """
    let data = """
      [{"title": "First", "byline": "Ann", "url": "https://a.example", "share": "60"},
       {"title": "Second", "byline": "Bob", "url": "https://b.example", "share": 40}]
      """
    let expected: [AnswerAction] = [
      .answer(expression: "Here you go", language: "en", mood: "sabta"),
      .table(
        columns: [
          TableColumn(key: "title", header: "Title"),
          TableColumn(key: "byline", header: "Author/s"),
        ],
        rows: [["First", "Ann"], ["Second", "Bob"]]),
      .rss(items: [FeedItem(title: "First", description: "Ann", link: "https://a.example")]),
      .websearch(query: "berlin", count: 3),
      .anchor(link: "https://susi.ai", text: "SUSI"),
      .map(latitude: 52.52, longitude: 13.405, zoom: 13),
      .piechart(
        slices: [PieSlice(label: "First", value: 60), PieSlice(label: "Second", value: 40)],
        unit: "%"),
      .videoPlay(identifier: "dQw4w9WgXcQ", identifierType: "youtube"),
      .audioPlay(identifier: "https://example.com/a.mp3", identifierType: "url"),
      .audioVolume(volume: 70),
      .imageShow(url: "https://example.com/cat.png"),
      .timerSet(time: "1599513374"),
      .control(.stop), .control(.pause), .control(.resume), .control(.restart), .control(.previous),
      .control(.next), .control(.shuffle), .control(.timerReset),
      .unknown(type: "emotion", raw: ["type": "emotion", "emotion": "happy"]),
    ]
    #expect(await Self.answers(actions, data: data) == expected)
  }

  @Test func tableColumnsMayBeAnArrayAndCellsAnyJSON() async {
    let data =
      #"[{"title": "a", "n": 1, "o": {"x": [1, null]}}, {"title": null, "n": 2.5}, {"n": true}]"#
    #expect(
      await Self.answers(#"[{"type":"table","columns":["title","n","o"]}]"#, data: data) == [
        .table(
          columns: [
            .init(key: "title", header: "title"), .init(key: "n", header: "n"),
            .init(key: "o", header: "o"),
          ],
          rows: [["a", 1, ["x": [1, nil]]], [nil, 2.5, nil], [nil, true, nil]])
      ])
  }

  @Test(arguments: [(-1, 3), (2, 2), (0, 0), (99, 3), (-7, 3)])
  func tableAndFeedCountsAreClamped(count: Int, shown: Int) async {
    let data = #"[{"t":"1","d":"x"},{"t":"2","d":"y"},{"t":"3","d":"z"}]"#
    let decoded = await Self.answers(
      #"[{"type":"table","columns":{"t":"T"},"count":\#(count)},{"type":"rss","title":"t","description":"d","link":"l","count":\#(count)}]"#,
      data: data)
    guard decoded.count == 2, case .table(_, let rows) = decoded[0],
      case .rss(let items) = decoded[1]
    else {
      Issue.record("unexpected \(decoded)")
      return
    }
    #expect(rows.count == shown)
    #expect(items.count == shown)
  }

  @Test func tableColumnsDefaultToTheFirstRowsKeys() async {
    #expect(
      await Self.answers(#"[{"type":"table"}]"#, data: #"[{"b":"1","a":"2"}]"#) == [
        .table(
          columns: [.init(key: "b", header: "b"), .init(key: "a", header: "a")], rows: [["1", "2"]])
      ])
  }

  @Test func feedFieldsAreKeyNamesIntoTheRows() async {
    let data =
      #"[{"headline":"H1","summary":"S1","href":"https://x.example/1","title":"not this"},{"headline":7,"href":null}]"#
    #expect(
      await Self.answers(
        #"[{"type":"rss","title":"headline","description":"summary","link":"href"}]"#, data: data)
        == [
          .rss(items: [
            FeedItem(title: "H1", description: "S1", link: "https://x.example/1"),
            FeedItem(title: "7", description: nil, link: nil),
          ])
        ])
  }

  @Test func mapCoordinatesAreParsedAndBadOnesKeptRaw() async {
    let actions = """
      [{"type":"map","latitude":52.5,"longitude":13,"zoom":10},
       {"type":"map","latitude":" 1.5 ","longitude":"-2.25"},
       {"type":"map","latitude":"$lat$","longitude":"$lon$","zoom":"13"},
       {"type":"map","latitude":"91","longitude":"0"}]
      """
    let decoded = await Self.answers(actions)
    #expect(decoded.count == 4)
    #expect(
      decoded.prefix(2) == [
        .map(latitude: 52.5, longitude: 13, zoom: 10),
        .map(latitude: 1.5, longitude: -2.25, zoom: 13),
      ])
    #expect(
      decoded[2]
        == .unknown(
          type: "map",
          raw: ["type": "map", "latitude": "$lat$", "longitude": "$lon$", "zoom": "13"]))
    #expect(decoded[3].typeName == "map")
    if case .unknown = decoded[3] {} else { Issue.record("an impossible latitude should stay raw") }
  }

  @Test func actionsMissingTheirFieldsAreKeptRaw() async {
    let decoded = await Self.answers(
      #"[{"type":"anchor"},{"type":"video_play"},{"type":"image_show","url":""},{"type":"audio_volume","volume":"loud"},"not an object",{"expression":"no type"}]"#
    )
    #expect(
      decoded.map(\.typeName) == ["anchor", "video_play", "image_show", "audio_volume", "", ""])
    #expect(decoded.allSatisfy { if case .unknown = $0 { true } else { false } })
  }

  @Test func plannedAnswersAreSplitOutAndGroupedByDelay() async {
    let actions = """
      [{"type":"answer","expression":"Sure, I will remind you."},
       {"type":"answer","expression":"second","plan_delay":5000,"plan_date":"2020-09-07T21:16:19.135Z"},
       {"type":"answer","expression":"first","plan_delay":"1000"},
       {"type":"anchor","link":"https://x.example","text":"later link","plan_delay":5000}]
      """
    let harness = Harness { _ in .json(Self.envelope(actions: actions)) }
    guard case .messageReceived(let message) = await harness.run(Self.chat) else {
      Issue.record("expected an answer")
      return
    }
    #expect(
      message.answers == [.answer(expression: "Sure, I will remind you.", language: nil, mood: nil)]
    )
    #expect(
      message.planned == [
        PlannedAnswer(
          delayMilliseconds: 1000, answers: [.answer(expression: "first", language: nil, mood: nil)]
        ),
        PlannedAnswer(
          delayMilliseconds: 5000,
          answers: [
            .answer(expression: "second", language: nil, mood: nil),
            .anchor(link: "https://x.example", text: "later link"),
          ]),
      ])
  }

  @Test(
    arguments: [
      ("\"2020-09-07T21:16:14.123Z\"", 1_599_513_374_123),
      ("\"2020-09-07T21:16:14Z\"", 1_599_513_374_000),
      ("\"2020-09-07T21:16:14.52Z\"", 1_599_513_374_520),
      ("\"2020-09-07 21:16:14.123\"", 1_599_513_374_123),
      ("\"2020-09-07T23:16:14.123+0200\"", 1_599_513_374_123),
      ("\"2020-09-07\"", 1_599_436_800_000),
      ("1599513374123", 1_599_513_374_123),
    ] as [(String, Int64)])
  func datesInTheServersFormatAndOthersAreRead(text: String, milliseconds: Int64) throws {
    #expect(ChatDecoder.date(try JSONParser.parse(text)) == Timestamp(milliseconds: milliseconds))
  }

  @Test(arguments: [
    "\"yesterday\"", "\"07.09.2020\"", "null", "true", "\"\"", "\"2020-13-45T99:99:99Z\"", "-5",
  ])
  func oddDatesBecomeNil(text: String) throws {
    #expect(ChatDecoder.date(try JSONParser.parse(text)) == nil)
  }

  @Test func historyPagesMemoryWithTheDateAndToken() async {
    let memory = """
      {"cognitions": [
        {"query": "newer", "answers": [{"data": [], "actions": [{"type": "answer", "expression": "B"}]}],
         "query_date": "2020-09-07T21:16:14.123Z", "answer_date": "2020-09-07T21:16:14.200Z"},
        {"query": "older", "answers": [{"data": [], "actions": [{"type": "answer", "expression": "A"},
          {"type": "answer", "expression": "A2", "plan_delay": 100}]}],
         "query_date": "2020-09-06 10:00:00.000", "answer_date": "odd"}
       ],
       "cognitions_remaining": 4,
       "session": {"identity": {"type": "email", "name": "u@example.com", "anonymous": false}}}
      """
    let harness = Harness { request in
      if request.path == "/aaa/login.json" {
        return .json(#"{"accepted":true,"access_token":"tok-9","valid_seconds":"forever"}"#)
      }
      return .json(memory)
    }
    _ = await harness.run(
      .login(server: "embedded", email: "u@example.com", password: Secret("pw"), validSeconds: -1))
    let before = Timestamp(milliseconds: 1_599_600_000_000)
    let result = await harness.run(.fetchHistory(server: "embedded", before: before), cause: 2)
    #expect(
      result
        == .historyLoaded(
          .init(
            entries: [
              HistoryEntry(
                query: "newer", answers: [.answer(expression: "B", language: nil, mood: nil)],
                queryDate: Timestamp(milliseconds: 1_599_513_374_123),
                answerDate: Timestamp(milliseconds: 1_599_513_374_200)),
              HistoryEntry(
                query: "older",
                answers: [
                  .answer(expression: "A", language: nil, mood: nil),
                  .answer(expression: "A2", language: nil, mood: nil),
                ],
                queryDate: Timestamp(milliseconds: 1_599_386_400_000), answerDate: nil),
            ], remaining: 4)))
    #expect(
      harness.transport.requests[1].parameters
        == ["cognitions": "10", "date": "2020-09-08T21:20:00.000Z", "access_token": "tok-9"])
  }

  @Test func anEmptyMemoryIsNoHistory() async {
    let harness = Harness { _ in .json(#"{"cognitions":[],"cognitions_remaining":0}"#) }
    #expect(
      await harness.run(.fetchHistory(server: "embedded", before: nil))
        == .historyLoaded(.init(entries: [], remaining: 0)))
    #expect(harness.transport.requests[0].parameters == ["cognitions": "10"])
  }
}
