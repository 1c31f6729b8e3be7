import Foundation
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct WebContentTests {
  @Test func webSearchAnswersInTheDuckDuckGoShape() throws {
    let server = try TestServer()
    let response = server.send("/duckduckgo/", [("q", "Tell me about SUSI"), ("format", "json")])
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "application/x-javascript")
    let reply = try #require(try JSONParser.parse(response.body).object)
    #expect(reply["Heading"] == "SUSI.AI")
    #expect(reply["AbstractURL"] == "http://127.0.0.1:4000/pages/susi.html")
    #expect(reply["Image"] == "/i/susi.png")
    let topics = try #require(reply["RelatedTopics"]?.array)
    let first = try #require(topics.first?.object)
    #expect(first["FirstURL"] == "http://127.0.0.1:4000/pages/susi.html")
    #expect(first["Icon"] == ["Height": 32, "URL": "/i/susi.png", "Width": 32])
    #expect(
      first["Result"]?.string?.hasPrefix(
        "<a href=\"http://127.0.0.1:4000/pages/susi.html\">SUSI offline</a>") == true)
    #expect(first["Text"]?.string?.hasPrefix("SUSI offline - ") == true)
    #expect(topics.contains { $0["Icon"]?["URL"] == "" && $0["Icon"]?["Height"] == "" })
    let group = try #require(topics.first { $0["Name"] != nil }?.object)
    #expect(group["Name"] == "Clients")
    #expect(group["Topics"]?.array?.count == 2)
  }

  @Test func unknownSearchesGetTheEmptyAnswer() throws {
    let server = try TestServer()
    let reply = try server.json("/duckduckgo", [("q", "zzzz qqqq"), ("format", "json")])
    #expect(reply["Heading"] == "")
    #expect(reply["RelatedTopics"] == [])
    #expect(reply["AbstractText"] == "")
    #expect(reply.keys.first == "Abstract")
  }

  @Test func servesIconsPagesAndTheirCharsets() throws {
    let server = try TestServer()
    let icon = server.send("/i/susi.png")
    #expect(icon.status == 200)
    #expect(icon.headers["Content-Type"] == "image/png")
    #expect(Array(icon.body.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
    let utf8 = server.send("/pages/susi.html")
    #expect(utf8.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(utf8.text.contains("<meta property=\"og:title\" content=\"SUSI, offline\">"))
    let latin1 = server.send("/pages/cafe.html")
    #expect(latin1.headers["Content-Type"] == "text/html; charset=iso-8859-1")
    #expect(String(validating: latin1.body, as: UTF8.self) == nil)
    let decoded = try #require(String(data: Data(latin1.body), encoding: .isoLatin1))
    #expect(decoded.contains("<meta property=\"og:title\" content=\"Café Müller\">"))
    let plain = server.send("/pages/plain.html")
    #expect(plain.text.contains("<meta name=\"description\""))
    #expect(!plain.text.contains("og:"))
    #expect(server.send("/pages/../accounts.json").status == 404)
    #expect(server.send("/pages/missing.html").status == 404)
  }

  @Test func skillImagesFallBackToTheDefault() throws {
    let server = try TestServer()
    let found = server.send(
      "/cms/getImage.png",
      [
        ("model", "general"), ("language", "en"), ("group", "Games, Trivia and Accessories"),
        ("image", "images/flip_coin.png"),
      ])
    #expect(found.status == 200)
    #expect(found.headers["Content-Type"] == "image/png")
    for image in ["images/joke.jpg", "../../../../../../etc/passwd", ""] {
      let fallback = server.send(
        "/cms/getImage.png",
        [
          ("model", "general"), ("language", "en"), ("group", "Novelty and Humour"),
          ("image", image),
        ])
      #expect(fallback.status == 200)
      #expect(fallback.headers["Content-Type"] == "image/jpeg")
      #expect(Array(fallback.body.prefix(3)) == [0xFF, 0xD8, 0xFF])
    }
  }
}
