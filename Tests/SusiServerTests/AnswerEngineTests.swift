import Foundation
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct AnswerEngineTests {
  func chat(_ server: TestServer, _ query: String, _ extra: [(String, String)] = []) throws
    -> JSONObject
  {
    let reply = try server.json("/susi/chat.json", [("q", query)] + extra)
    return try #require(reply["answers"]?.array?.first?.object)
  }

  func actions(_ answer: JSONObject) -> [JSONObject] {
    (answer["actions"]?.array ?? []).compactMap(\.object)
  }

  @Test func matchesCaseInsensitivelyIgnoringPunctuation() throws {
    let data = try dataDirectory(["Social/en/greet": "hello there\nGeneral Kenobi\n"])
    let server = try TestServer(dataDirectory: data)
    let answer = try chat(server, "  HELLO, There?! ")
    #expect(actions(answer).first?["expression"] == "General Kenobi")
  }

  @Test func substitutesWildcardCaptures() throws {
    let data = try dataDirectory([
      "Knowledge/en/syn": "synonym of *|* means what\nWords like $1$ ($0$)\n"
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(
      actions(try chat(server, "Synonym of Happy"))[0]["expression"]
        == "Words like Happy (Synonym of Happy)")
    let answer = try chat(server, "big red dog means what")
    #expect(actions(answer)[0]["expression"] == "Words like big red dog (big red dog means what)")
    #expect(answer["data"]?.array?.first?["1"] == "big red dog")
  }

  @Test func exactPatternsBeatWildcardsAndPriorBeatsBoth() throws {
    let data = try dataDirectory([
      "Knowledge/en/a": "capital of *\nunknown\n\ncapital of france\nParis\n",
      "Knowledge/en/b": "::prior\n\nsay *\n$1$\n",
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(actions(try chat(server, "capital of france"))[0]["expression"] == "Paris")
    #expect(actions(try chat(server, "capital of peru"))[0]["expression"] == "unknown")
    #expect(
      actions(try chat(server, "say capital of france"))[0]["expression"] == "capital of france")
  }

  @Test func consoleRulesFillTemplatesFromTheFirstRow() throws {
    let data = try dataDirectory([
      "News/en/news": """
      news about *
      !console:Top: $title$ on $1$
      {"data": [{"title": "One", "link": "http://x/$1$"}, {"title": "Two"}],
       "actions": [{"type": "rss", "title": "title", "description": "title", "link": "link"}]}
      eol
      """
    ])
    let server = try TestServer(dataDirectory: data)
    let answer = try chat(server, "news about cats")
    #expect(actions(answer)[0]["expression"] == "Top: One on cats")
    #expect(actions(answer)[1]["type"] == "rss")
    #expect(actions(answer)[1]["count"] == -1)
    let rows = try #require(answer["data"]?.array)
    #expect(rows.count == 2)
    #expect(rows[0]["link"] == "http://x/cats")
    #expect(rows[0]["0"] == "news about cats")
    #expect(answer["metadata"]?["count"] == 2)
  }

  @Test func consoleRulesThatOnlyNameAURLNeverMatchOffline() throws {
    let data = try dataDirectory([
      "Novelty and Humour/en/joke":
        "tell me a joke\n!console:$joke$\n{\"url\":\"http://api.example/joke\",\"path\":\"$.value\"}\neol\n"
    ])
    let server = try TestServer(dataDirectory: data)
    let answer = try chat(server, "tell me a joke")
    #expect(actions(answer)[0]["mood"] == "sabta")
  }

  @Test func uniqueActionsKeepsOnlyTheFirstActionWithoutExpression() throws {
    let data = try dataDirectory([
      "Travel and Transportation/en/place": """
      show the place
      !console:Here it is.
      {"data": [], "actions": [
        {"type": "anchor", "link": "http://x", "text": "X"},
        {"type": "map", "latitude": 1.5, "longitude": 2, "zoom": 13}]}
      eol
      """
    ])
    let server = try TestServer(dataDirectory: data)
    #expect(actions(try chat(server, "show the place")).map { $0["type"] } == ["answer", "anchor"])
    let debug = actions(try chat(server, "show the place", [("debug", "true")]))
    #expect(debug.map { $0["type"] } == ["answer", "anchor", "map"])
    #expect(debug[2]["latitude"] == "1.5")
    #expect(debug[2]["longitude"] == "2")
    #expect(debug[2]["zoom"] == "13")
  }

  @Test func plannedAnswersCarryDelayAndDate() throws {
    let server = try TestServer()
    let planned = actions(try chat(server, "set a timer for 90 seconds")).last
    #expect(planned?["plan_delay"] == 90_000)
    #expect(planned?["plan_date"] == "2020-09-07T21:17:44.000Z")
    #expect(planned?["expression"] == "Your 90 second timer is done.")
  }

  @Test func planDelaysParseUnits() {
    #expect(AnswerEngine.milliseconds("1500ms") == 1500)
    #expect(AnswerEngine.milliseconds("10s") == 10_000)
    #expect(AnswerEngine.milliseconds("2m") == 120_000)
    #expect(AnswerEngine.milliseconds("1h") == 3_600_000)
    #expect(AnswerEngine.milliseconds("250") == 250)
    #expect(AnswerEngine.milliseconds("soon") == nil)
    #expect(AnswerEngine.milliseconds("-5s") == nil)
    #expect(AnswerEngine.milliseconds("100000h") == nil)
  }

  @Test func secondLanguageSkillsAnswerInThatLanguage() throws {
    let server = try TestServer()
    let answer = try chat(server, "hallo", [("language", "de")])
    #expect(answer["skills"]?.array?.first?.string?.hasSuffix("/Social/de/Greetings.txt") == true)
    #expect(actions(answer)[0]["language"] == "de")
    let fallback = try chat(server, "was ist das", [("language", "de")])
    #expect(actions(fallback)[0]["expression"] == "Ich weiß die Antwort auf diese Frage nicht.")
  }

  @Test func seededRandomnessIsReproducible() throws {
    func answers(seed: UInt64) throws -> [String] {
      let server = try TestServer(seed: seed)
      return try (0..<12).map { _ in
        try #require(actions(try chat(server, "roll a die"))[0]["expression"]?.string)
      }
    }
    #expect(try answers(seed: 1) == answers(seed: 1))
    #expect(try answers(seed: 1) != answers(seed: 2))
  }

  @Test func longQueriesFallBackInsteadOfSearchingForever() throws {
    let data = try dataDirectory(["Knowledge/en/w": "* a * a * a * b\nyes\n"])
    let server = try TestServer(dataDirectory: data)
    let query = Array(repeating: "a", count: 60).joined(separator: " ")
    #expect(actions(try chat(server, query))[0]["mood"] == "sabta")
  }
}
