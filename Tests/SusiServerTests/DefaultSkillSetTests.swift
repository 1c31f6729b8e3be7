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

  /// The clock answers with the time and date where the client is (its `timezoneOffset`, in
  /// minutes as JavaScript's `getTimezoneOffset()` gives them), read from the machine's clock.
  @Test func clockTellsTheTimeAndDateWhereTheClientIs() throws {
    let server = try TestServer()
    func answer(_ query: String, timezoneOffset: Int) throws -> String {
      let reply = try server.json(
        "/susi/chat.json", [("q", query), ("timezoneOffset", String(timezoneOffset))])
      let answer = try #require(reply["answers"]?.array?.first)
      #expect(answer["skills"]?.array?.first?.string?.hasSuffix("/Clock.txt") == true)
      return try #require(answer["actions"]?.array?.first?["expression"]?.string)
    }
    /// Minutes since midnight in "It is HH:MM.".
    func minutes(_ text: String) throws -> Int {
      let digits = try #require(text.wholeMatch(of: /It is (\d\d):(\d\d)\./))
      return try #require(Int(digits.1)) * 60 + #require(Int(digits.2))
    }
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = try #require(TimeZone(identifier: "UTC"))
    func minutesOfDay(_ date: Date) -> Int {
      let parts = utc.dateComponents([.hour, .minute], from: date)
      return parts.hour! * 60 + parts.minute!
    }
    let before = Date()
    let atUTC = try minutes(answer("what time is it", timezoneOffset: 0))
    let inIndia = try minutes(answer("what's the time", timezoneOffset: -330))
    let after = Date()
    // Read between `before` and `after`; the minute may turn between the two questions.
    #expect([minutesOfDay(before), minutesOfDay(after)].contains(atUTC))
    #expect([330, 331].contains((inIndia - atUTC + 1440) % 1440))

    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = utc.timeZone
    formatter.dateFormat = "EEEE, d MMMM yyyy"
    let today = try answer("what day is it", timezoneOffset: 0)
    let days = [before, Date()].map { "Today is \(formatter.string(from: $0))." }
    #expect(days.contains(today), "\(today)")
  }

  /// Sums of two numbers are worked out; anything that is not two numbers, or a result that is
  /// not a number, falls through to the next answer.
  @Test func mathWorksOutTwoNumbers() throws {
    let server = try TestServer()
    func answer(_ query: String) throws -> (text: String, skill: String) {
      let reply = try server.json("/susi/chat.json", [("q", query)])
      let answer = try #require(reply["answers"]?.array?.first)
      let skill = answer["skills"]?.array?.first?.string ?? ""
      let text = answer["actions"]?.array?.first?["expression"]?.string ?? ""
      return (text, String(skill.split(separator: "/").last ?? ""))
    }
    #expect(try answer("what is 12 plus 30") == ("12 plus 30 is 42.", "Math.txt"))
    #expect(try answer("what is 2.5 times 4") == ("2.5 times 4 is 10.", "Math.txt"))
    #expect(try answer("10 minus 20") == ("10 minus 20 is -10.", "Math.txt"))
    #expect(try answer("what is 1 divided by 3") == ("1 divided by 3 is 0.333333333.", "Math.txt"))
    for query in ["what is 5 divided by 0", "what is apples plus pears", "what is it's plus 2"] {
      #expect(try answer(query).skill != "Math.txt", "\(query)")
    }
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
