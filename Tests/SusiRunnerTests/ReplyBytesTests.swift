import SusiCore
import SusiHTTPClient
import SusiJSON
import Testing

@testable import SusiRunner

/// A chat reply read from its bytes (`BytesFieldReader`) gives what its tree gives; where the
/// bytes reader cannot be sure it gives up, and the tree decides the result or the error.
@Suite struct ReplyBytesTests {
  static func fromTree(_ text: String) throws -> ChatDecoder.Exchange {
    let object = try ReplyReader.object(
      TransportResponse(status: 200, body: Array(text.utf8)), endpoint: Endpoints.chat,
      place: Endpoints.chat.path)
    return try ChatDecoder.exchange(
      FieldReader(object), fallbackQuery: "asked", place: Endpoints.chat.path)
  }

  static func fromBytes(_ text: String) -> ChatDecoder.Exchange? {
    let body = Array(text.utf8)
    return ReplyReader.fromBytes(body, 0, body.count) {
      try ChatDecoder.exchange($0, fallbackQuery: "asked", place: Endpoints.chat.path)
    }
  }

  static func read(_ text: String) throws(RunnerFailure) -> ChatDecoder.Exchange {
    try ChatDecoder.exchange(
      TransportResponse(status: 200, body: Array(text.utf8)), fallbackQuery: "asked")
  }

  /// Replies the bytes reader reads: the server's own (pretty-printed, with members the client
  /// does not read), the 2018 envelope, absent and null answers, answers and actions that are
  /// not objects, data rows for tables, feeds and charts, planned answers, escapes, non-ASCII
  /// text and numbers as strings.
  static let readable = [
    """
    {
      "query": "hello", "count": 1,
      "answers": [{
        "data": [{"0": "hello", "timezoneOffset": "0", "client_host": "127.0.0.1"}],
        "metadata": {"count": 1},
        "actions": [{"type": "answer", "language": "en", "line": 8, "expression": "Hey."}],
        "skills": ["/susi_skill_data/models/general/Social/en/Greetings.txt"]
      }],
      "query_date": "2026-11-28T01:12:34.032Z", "answer_date": "2026-11-28T01:12:34.033Z",
      "answer_time": 1, "client_id": "aG9zdA==",
      "session": {"identity": {"type": "host", "name": "127.0.0.1", "anonymous": true}}
    }
    """,
    #"{"query":"q","count":1,"client_id":"x","query_date":"2017-05-01T10:00:00.000Z","answers":[{"data":[],"metadata":{"hits":0},"actions":[{"type":"answer","expression":"caf\u00e9 \"x\" 😀","mood":"","language":"de"}]}],"answer_date":1599513374123,"language":"en","session":{"identity":{"anonymous":"no"}}}"#,
    #"{"query":"nothing"}"#, #"{"answers":null,"query":null}"#, #"{"answers":[]}"#,
    #"{"answers":[1,"x",{"actions":[2,{"type":"answer","expression":7}],"skills":[3,"s"]}]}"#,
    #"{"answers":[{"data":[{"a":1,"b":[true]},5,{"a":"x"}],"actions":[{"type":"table","columns":{"a":"A","b":"B"},"count":"1"},{"type":"table","columns":["a"]},{"type":"table"},{"type":"rss","title":"a","count":-1},{"type":"piechart","key":"a","value":"a","unit":"%"}]}]}"#,
    #"{"answers":[{"actions":[{"type":"answer","expression":"later","plan_delay":"2000"},{"type":"answer","expression":"sooner","plan_delay":500},{"type":"answer","expression":"now","plan_delay":0},{"type":"map","latitude":"52.5","longitude":13.4,"zoom":null},{"type":"websearch","query":"cats","count":3},{"type":"anchor","link":"http://x/"},{"type":"audio_volume","volume":"120"},{"type":"video_play","identifier":"v"},{"type":"pause"}]}]}"#,
    #"{"accepted":true,"message":"ok","answers":[{"actions":{"type":"answer"},"skills":"s"}],"session":[]}"#,
  ]

  @Test(arguments: readable)
  func aReplyReadFromItsBytesGivesWhatItsTreeGives(text: String) throws {
    let fromBytes = try #require(Self.fromBytes(text))
    #expect(fromBytes == (try Self.fromTree(text)))
    #expect(try Self.read(text) == fromBytes)
  }

  /// Replies the bytes reader leaves to the tree: a repeated key (the tree keeps the last), an
  /// action kept raw (an unknown type, a map without coordinates), and an invalid value in a
  /// member the decoder does not read, which makes the whole reply not JSON.
  static let leftToTree = [
    #"{"query":"a","query":"b"}"#, #"{"answers":[{"actions":[{"type":"dance","speed":2}]}]}"#,
    #"{"answers":[{"actions":[{"type":"map","latitude":"$lat$","longitude":"$lon$"}]}]}"#,
    #"{"query":"a","client_id":"\x"}"#,
  ]

  @Test(arguments: leftToTree)
  func aReplyTheBytesReaderLeavesIsReadAsATree(text: String) {
    #expect(Self.fromBytes(text) == nil)
    #expect((try? Self.read(text)) == (try? Self.fromTree(text)))
  }

  /// Refusals and bad shapes fail as the tree path fails them, with its message.
  @Test(arguments: [
    #"{"accepted":false,"message":"no  way"}"#, #"{"answers":5}"#, #"{"answers":{"a":1}}"#,
    #"{"query":"a","client_id":"\x"}"#, "[1]",
  ])
  func aBadReplyFailsAsItsTreeFails(text: String) {
    var fromTree: RunnerFailure?
    do { _ = try Self.fromTree(text) } catch { fromTree = error as? RunnerFailure }
    var read: RunnerFailure?
    do throws(RunnerFailure) { _ = try Self.read(text) } catch { read = error }
    #expect(read != nil)
    #expect(read == fromTree)
  }
}
