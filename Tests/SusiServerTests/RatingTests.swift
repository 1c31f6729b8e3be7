import Foundation
import SusiClock
import SusiHTTPServer
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct RatingTests {
  func rate(_ server: TestServer, _ token: String, _ stars: String, skill: String = "Synonyms")
    -> (Int, JSONObject?)
  {
    let response = server.send(
      "/cms/fiveStarRateSkill.json",
      [("group", "Knowledge"), ("skill", skill), ("stars", stars), ("access_token", token)])
    return (response.status, try? JSONParser.parse(response.body).object)
  }

  @Test func oneRatingPerUserAndRepeatsReplaceIt() throws {
    let server = try TestServer()
    let alice = try server.login("alice@example.com")
    let bob = try server.login("bob@example.com")
    #expect(rate(server, alice, "5").1?["ratings"]?["avg_star"] == 5)
    let two = try #require(rate(server, bob, "3").1)
    #expect(two["message"] == "Skill ratings updated")
    #expect(
      two["ratings"]
        == [
          "one_star": 0, "two_star": 0, "three_star": 1, "four_star": 0, "five_star": 1,
          "avg_star": 4, "total_star": 2,
        ])
    let replaced = try #require(rate(server, bob, "4").1?["ratings"])
    #expect(replaced["three_star"] == 0)
    #expect(replaced["four_star"] == 1)
    #expect(replaced["total_star"] == 2)
    #expect(replaced["avg_star"] == 4.5)
    let carol = try server.login("carol@example.com")
    #expect(rate(server, carol, "5").1?["ratings"]?["avg_star"] == 4.67)
  }

  @Test func ratingErrors() throws {
    let server = try TestServer()
    let token = try server.login()
    #expect(
      server.send("/cms/fiveStarRateSkill.json", [("skill", "Synonyms"), ("stars", "4")]).status
        == 401)
    let missingSkill = server.send(
      "/cms/fiveStarRateSkill.json", [("stars", "4"), ("access_token", token)])
    #expect(missingSkill.status == 500)
    let unknown = rate(server, token, "4", skill: "No such skill")
    #expect(unknown.0 == 404)
    let missingStars = server.send(
      "/cms/fiveStarRateSkill.json",
      [("group", "Knowledge"), ("skill", "Synonyms"), ("access_token", token)])
    #expect(missingStars.title == "Error 422 Rating not provided.")
    #expect(rate(server, token, "four").0 == 500)
    // Out of range on an unrated skill: NaN average, a 500; nothing stored.
    #expect(rate(server, token, "7").0 == 500)
    #expect(rate(server, token, "2").1?["ratings"]?["total_star"] == 1)
    // Out of range once rated: the aggregate, unchanged.
    #expect(rate(server, token, "0").1?["ratings"]?["two_star"] == 1)
  }

  @Test func skillIsFoundByTagOrNameCaseInsensitively() throws {
    let server = try TestServer()
    let token = try server.login()
    let response = server.send(
      "/cms/fiveStarRateSkill.json",
      [
        ("group", "Games, Trivia and Accessories"), ("skill", "flip_a_coin"), ("stars", "5"),
        ("access_token", token),
      ])
    #expect(response.status == 200)
    let rating = try server.json(
      "/cms/getSkillRating.json",
      [("group", "Games, Trivia and Accessories"), ("skill", "FLIP A COIN")])
    #expect(rating["skill_name"] == "Flip a coin")
  }

  @Test func skillRatingVariants() throws {
    let server = try TestServer()
    let unrated = try server.json("/cms/getSkillRating.json", [("skill", "Synonyms")])
    #expect(unrated.keys == ["accepted", "message", "skill_rating", "session"])
    #expect(unrated["accepted"] == false)
    #expect(unrated["message"] == "Skill has not been rated yet")
    #expect(unrated["skill_rating"]?["stars"]?["total_star"] == 0)
    let token = try server.login()
    _ = rate(server, token, "4")
    let rated = try server.json("/cms/getSkillRating.json", [("skill", "Synonyms")])
    #expect(rated.keys == ["skill_name", "skill_rating", "accepted", "message", "session"])
    #expect(rated["message"] == "Skill ratings fetched")
    #expect(rated["skill_rating"]?["negative"] == "0")
    #expect(rated["skill_rating"]?["stars"]?["four_star"] == 1)
    let missing = server.send("/cms/getSkillRating.json", [("skill", "Nope")])
    #expect(missing.status == 404)
    #expect(missing.title == "Error 404 Skill does not exist.")
  }

  @Test func ratingByUserVariants() async throws {
    let server = try TestServer()
    let alice = try server.login("alice@example.com")
    let bob = try server.login("bob@example.com")
    let parameters = [("group", "Knowledge"), ("skill", "Synonyms")]
    #expect(server.send("/cms/getRatingByUser.json", parameters).status == 401)
    let nobody = try server.json(
      "/cms/getRatingByUser.json", parameters + [("access_token", alice)])
    #expect(nobody["message"] == "Skill not rated by the user")
    #expect(nobody["ratings"] == nil)
    _ = rate(server, bob, "3")
    let others = try server.json(
      "/cms/getRatingByUser.json", parameters + [("access_token", alice)])
    #expect(others["message"] == "Skill not yet rated by the user")
    await server.clock.advance(by: .milliseconds(450))
    _ = rate(server, alice, "4")
    let own = try server.json("/cms/getRatingByUser.json", parameters + [("access_token", alice)])
    #expect(own["message"] == "Fetched user rating successfully")
    #expect(
      own["ratings"] == [
        "email": "alice@example.com", "stars": 4, "timestamp": "2020-09-07 21:16:14.45",
      ])
    // The default group is `All`, which never holds ratings.
    let noGroup = try server.json(
      "/cms/getRatingByUser.json", [("skill", "Synonyms"), ("access_token", alice)])
    #expect(noGroup["message"] == "Skill not rated by the user")
  }

  @Test func javaTimestampFormat() {
    #expect(SusiDateFormat.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.0")
    #expect(
      SusiDateFormat.timestamp(Date(timeIntervalSince1970: 1.456)) == "1970-01-01 00:00:01.456")
    #expect(SusiDateFormat.fileTime(Date(timeIntervalSince1970: 1.52)) == "1970-01-01T00:00:01.52Z")
    #expect(SusiDateFormat.fileTime(Date(timeIntervalSince1970: 1)) == "1970-01-01T00:00:01Z")
  }
}
