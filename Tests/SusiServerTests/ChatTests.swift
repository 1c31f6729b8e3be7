import Foundation
import SusiClock
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct ChatTests {
  @Test func envelopeHasTheCurrentShape() throws {
    let server = try TestServer()
    let reply = try server.json(
      "/susi/chat.json", [("q", " flip a coin "), ("timezoneOffset", "-60")])
    #expect(
      reply.keys == [
        "query", "count", "answers", "query_date", "query_language", "answer_date", "answer_time",
        "client_id",
        "session",
      ])
    #expect(reply["query"] == "flip a coin")
    #expect(reply["query_date"] == "2020-09-07T21:16:14.000Z")
    #expect(reply["query_language"] == "en")
    #expect(reply["answer_time"] == 0)
    let name = try #require(reply["session"]?["identity"]?["name"]?.string)
    #expect(reply["client_id"]?.string == Data("host_\(name)".utf8).base64EncodedString())
    let answer = try #require(reply["answers"]?.array?.first?.object)
    #expect(answer.keys == ["data", "metadata", "actions", "skills"])
    #expect(
      answer["data"]
        == [
          [
            "0": "flip a coin", "timezoneOffset": "-60", "language": "en",
            "client_host": "203.0.113.7",
          ]
        ])
    #expect(answer["metadata"] == ["count": 1])
    let action = try #require(answer["actions"]?.array?.first?.object)
    #expect(action.keys == ["type", "language", "line", "expression"])
    #expect(action["line"] == 8)
    #expect(["heads", "tails"].contains(action["expression"]?.string ?? ""))
    #expect(
      answer["skills"] == [
        "/susi_skill_data/models/general/Games, Trivia and Accessories/en/Flip a coin.txt"
      ])
  }

  @Test func unknownQueriesGetTheFallbackAndAWebSearch() throws {
    let server = try TestServer()
    let reply = try server.json("/susi/chat.json", [("q", "what is the airspeed of a swallow")])
    let answer = try #require(reply["answers"]?.array?.first?.object)
    #expect(
      answer["actions"]
        == [
          [
            "type": "answer", "language": "en",
            "expression": "I don't know the answer to that question.",
            "mood": "sabta",
          ],
          ["type": "websearch", "query": "what is the airspeed of a swallow"],
        ])
    #expect(answer["skills"] == ["/susi_server/conf/os_skills/system/en/en_0090_fail.json"])
  }

  @Test func emptyQueriesHaveNoAnswers() throws {
    let server = try TestServer()
    let reply = try server.json("/susi/chat.json", [("q", "   ")])
    #expect(reply["answers"] == nil)
    #expect(reply["query"] == "")
  }

  @Test func locationAndCountryBecomeObservations() throws {
    let server = try TestServer()
    let reply = try server.json(
      "/susi/chat.json",
      [
        ("q", "hi"), ("latitude", "52.5"), ("longitude", "13.4"), ("country_code", "DE"),
        ("country_name", "Germany"),
      ])
    let row = try #require(reply["answers"]?.array?.first?["data"]?.array?.first?.object)
    #expect(row["latitude"] == "52.5")
    #expect(row["longitude"] == "13.4")
    #expect(row["country_code"] == "DE")
  }

  @Test func loggedInChatsUseTheEmailIdentity() throws {
    let server = try TestServer()
    let token = try server.login()
    let reply = try server.json("/susi/chat.json", [("q", "hi"), ("access_token", token)])
    #expect(reply["client_id"]?.string == Data("email_user@example.com".utf8).base64EncodedString())
  }

  @Test func memoryIsPerIdentityNewestFirstAtMostTen() async throws {
    let server = try TestServer()
    let token = try server.login()
    for i in 0..<12 {
      _ = try server.json("/susi/chat.json", [("q", "say number \(i)"), ("access_token", token)])
      await server.clock.advance(by: .seconds(1))
    }
    _ = try server.json("/susi/chat.json", [("q", "hi")])
    let memory = try server.json("/susi/memory.json", [("access_token", token)])
    #expect(memory.keys == ["cognitions", "cognitions_remaining", "session"])
    let cognitions = try #require(memory["cognitions"]?.array)
    #expect(cognitions.count == 10)
    #expect(cognitions.first?["query"] == "say number 11")
    #expect(cognitions.first?["session"] == nil)
    #expect(memory["cognitions_remaining"] == 2)
    let three = try server.json(
      "/susi/memory.json", [("access_token", token), ("cognitions", "3")])
    #expect(three["cognitions"]?.array?.count == 3)
    #expect(three["cognitions_remaining"] == 9)
    let older = try server.json(
      "/susi/memory.json", [("access_token", token), ("date", "2020-09-07T21:16:15.000Z")])
    #expect(
      older["cognitions"]?.array?.compactMap { $0["query"]?.string } == [
        "say number 1", "say number 0",
      ])
    #expect(older["cognitions_remaining"] == 0)
    let anonymous = try server.json("/susi/memory.json")
    #expect(anonymous["cognitions"]?.array?.compactMap { $0["query"]?.string } == ["hi"])
  }

  @Test func usageIsCounted() throws {
    let server = try TestServer()
    for _ in 0..<3 { _ = try server.json("/susi/chat.json", [("q", "motivate me")]) }
    let metadata = try server.json(
      "/cms/getSkillMetadata.json",
      [("model", "general"), ("group", "Lifestyle"), ("language", "en"), ("skill", "Motivation")])
    #expect(metadata["skill_metadata"]?["usage_count"] == 3)
  }
}
