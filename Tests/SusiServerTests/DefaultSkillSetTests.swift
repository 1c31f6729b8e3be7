import Foundation
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct DefaultSkillSetTests {
  @Test func loadsWithoutWarnings() throws {
    let server = try TestServer()
    #expect(server.handler.loadWarnings == [])
    #expect(server.handler.library.skills.count >= 30)
    #expect(Set(server.handler.library.skills.map(\.language)) == ["en", "de"])
  }

  /// Asks every example of every skill and checks that the skill itself answers, and that
  /// together the answers use every action type the client renders.
  @Test func everyExampleIsAnsweredByItsSkillAndEveryActionTypeAppears() throws {
    let server = try TestServer()
    var types = Set<String>()
    var planned = false
    for skill in server.handler.library.skills {
      #expect(!skill.file.examples.isEmpty, "\(skill.tag) has no examples")
      #expect(skill.file.header("name") != nil, "\(skill.tag) has no name")
      #expect(skill.file.header("description") != nil, "\(skill.tag) has no description")
      for example in skill.file.examples {
        let reply = try server.json(
          "/susi/chat.json", [("q", example), ("language", skill.language)])
        let answer = try #require(reply["answers"]?.array?.first)
        #expect(answer["skills"] == [.string(skill.serverPath)], "\(example)")
        for action in answer["actions"]?.array ?? [] {
          types.insert(action["type"]?.string ?? "?")
          if action["plan_delay"] != nil { planned = true }
        }
      }
    }
    let unknown = try server.json(
      "/susi/chat.json", [("q", "colorless green ideas sleep furiously")])
    for action in unknown["answers"]?.array?.first?["actions"]?.array ?? [] {
      types.insert(action["type"]?.string ?? "?")
    }
    let required: Set = [
      "answer", "table", "rss", "websearch", "anchor", "map", "video_play", "audio_play", "stop",
      "piechart", "image_show",
    ]
    #expect(required.isSubset(of: types), "missing: \(required.subtracting(types))")
    #expect(planned)
  }

  @Test func imagesNamedBySkillsExistExceptOneThatShowsTheFallback() throws {
    let server = try TestServer()
    let library = server.handler.library
    var missing: [String] = []
    for skill in library.skills {
      guard let image = skill.file.header("image") else { continue }
      if library.imageFile(
        model: skill.model, group: skill.group, language: skill.language, image: image) == nil
      {
        missing.append("\(skill.tag): \(image)")
      }
    }
    #expect(missing == ["joke: images/joke.jpg"])
  }

  @Test func imageShowURLsPointAtServableImages() throws {
    let server = try TestServer()
    for query in ["show me a painting", "show me the moon"] {
      let reply = try server.json("/susi/chat.json", [("q", query)])
      let actions = reply["answers"]?.array?.first?["actions"]?.array ?? []
      let url = try #require(actions.first { $0["type"] == "image_show" }?["url"]?.string)
      let target = try #require(url.split(separator: "4000", maxSplits: 1).last)
      let response = server.handler.respond(.init(method: "GET", target: String(target)))
      #expect(response.headers["Content-Type"] == "image/png", "\(url)")
    }
  }
}
