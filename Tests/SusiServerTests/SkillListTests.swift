import Foundation
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import Testing

@testable import SusiServer

@Suite struct SkillListTests {
  static let realGroups = [
    "Art and Beauty", "Business and Finance", "Communication", "Connected Car", "Food and Drink",
    "Games, Trivia and Accessories", "Health and Fitness", "Interests", "Knowledge", "Lifestyle",
    "Movies and TV", "Music and Audio", "News", "Novelty and Humour", "Problem Solving",
    "Productivity", "Shopping", "Social", "Sports", "Travel and Transportation", "Utilities",
    "Weather",
  ]

  @Test func listsTheRealGroupNames() throws {
    let server = try TestServer()
    let reply = try server.json("/cms/getGroups.json")
    #expect(reply.keys == ["accepted", "groups", "message", "session"])
    #expect(reply["groups"]?.array?.compactMap(\.string) == Self.realGroups)
    #expect(reply["message"] == "Success: Fetched group list")
    #expect(server.send("/cms/getGroups.json", [("model", "nope")]).status == 500)
  }

  @Test func allGroupsByDefaultKeyedByTag() throws {
    let server = try TestServer()
    let reply = try server.json("/cms/getSkillList.json")
    #expect(
      reply.keys == ["accepted", "model", "group", "language", "skills", "message", "session"])
    #expect(reply["group"] == "All")
    let skills = try #require(reply["skills"]?.object)
    #expect(skills.count >= 30)
    #expect(skills["Flip a coin"]?["group"] == "Games, Trivia and Accessories")
    #expect(skills["Flip a coin"]?["skill_tag"] == "Flip a coin")
  }

  @Test func oneGroupWithSpacesAndCommas() throws {
    let server = try TestServer()
    let reply = try server.json(
      "/cms/getSkillList.json", [("group", "Games, Trivia and Accessories")])
    #expect(reply["skills"]?.object?.keys.sorted() == ["Flip a coin", "Roll a die", "Trivia"])
    let unknown = try server.json("/cms/getSkillList.json", [("group", "Nope")])
    #expect(unknown["skills"] == .object([:]))
    #expect(unknown["accepted"] == true)
  }

  @Test func languageListAndCollisions() throws {
    let data = try dataDirectory([
      "Knowledge/en/Same": "::name From Knowledge\n\na\nb\n",
      "Weather/en/Same": "::name From Weather\n\nc\nd\n",
      "Weather/de/Wetter": "e\nf\n",
    ])
    let server = try TestServer(dataDirectory: data)
    let reply = try server.json("/cms/getSkillList.json", [("language", "en,de")])
    #expect(reply["language"] == "en,de")
    let skills = try #require(reply["skills"]?.object)
    #expect(skills.keys == ["Same", "Wetter"])
    #expect(skills["Same"]?["skill_name"] == "From Weather")
  }

  @Test func filtersSortsAndPages() throws {
    let server = try TestServer()
    let base: [(String, String)] = [
      ("applyFilter", "true"), ("filter_type", "lexicographical"), ("filter_name", "ascending"),
    ]
    let all = try server.json("/cms/getSkillList.json", base)
    let names = try #require(all["filteredData"]?.array).compactMap { $0["skill_name"]?.string }
    #expect(names == names.sorted { $0.lowercased() < $1.lowercased() })
    #expect(
      all.keys == [
        "accepted", "filteredData", "model", "group", "language", "skills", "message", "session",
      ])

    let page = try server.json("/cms/getSkillList.json", base + [("count", "5"), ("page", "1")])
    #expect(page.keys.prefix(3) == ["accepted", "pageCount", "filteredData"])
    #expect(page["pageCount"]?.int == (names.count + 4) / 5)
    #expect(
      page["filteredData"]?.array?.compactMap { $0["skill_name"]?.string } == Array(names[5..<10]))
    #expect(page["skills"]?.object?.count == names.count)

    let descending = try server.json(
      "/cms/getSkillList.json",
      [("applyFilter", "true"), ("filter_type", "lexicographical"), ("filter_name", "descending")])
    #expect(
      descending["filteredData"]?.array?.compactMap { $0["skill_name"]?.string } == names.reversed()
    )

    let search = try server.json("/cms/getSkillList.json", base + [("q", "COIN")])
    #expect(
      search["filteredData"]?.array?.compactMap { $0["skill_tag"]?.string } == ["Flip a coin"])
  }

  @Test func ratingFiltersAndSorts() throws {
    let server = try TestServer()
    let token = try server.login()
    _ = try server.json(
      "/cms/fiveStarRateSkill.json",
      [("group", "Knowledge"), ("skill", "Synonyms"), ("stars", "4"), ("access_token", token)])
    _ = try server.json(
      "/cms/fiveStarRateSkill.json",
      [("group", "Weather"), ("skill", "Forecast"), ("stars", "2"), ("access_token", token)])
    let top = try server.json(
      "/cms/getSkillList.json",
      [("applyFilter", "true"), ("filter_type", "top_rated"), ("filter_name", "descending")])
    #expect(
      top["filteredData"]?.array?.prefix(2).compactMap { $0["skill_tag"]?.string } == [
        "Synonyms", "Forecast",
      ])
    let rated = try server.json(
      "/cms/getSkillList.json",
      [
        ("applyFilter", "true"), ("filter_type", "rating"), ("filter_name", "ascending"),
        ("avg_rating", "3"),
      ])
    #expect(rated["filteredData"]?.array?.compactMap { $0["skill_tag"]?.string } == ["Synonyms"])
  }

  @Test func filterParameterErrors() throws {
    let server = try TestServer()
    #expect(server.send("/cms/getSkillList.json", [("applyFilter", "true")]).status == 500)
    #expect(
      server.send("/cms/getSkillList.json", [("applyFilter", "true"), ("filter_type", "rating")])
        .status == 500)
    let negative = server.send("/cms/getSkillList.json", [("count", "-1")])
    #expect(negative.status == 422)
    #expect(negative.title == "Error 422 Invalid count value. It should be positive.")
    #expect(server.send("/cms/getSkillList.json", [("count", "many")]).status == 500)
    #expect(
      server.send("/cms/getSkillList.json", [("reviewed", "yes")]).title
        == "Error 400 Bad service call.")
  }

  @Test func countWithoutFilterOnlyAddsPageCount() throws {
    let server = try TestServer()
    let reply = try server.json("/cms/getSkillList.json", [("group", "Knowledge"), ("count", "2")])
    #expect(reply["pageCount"] == 2)
    #expect(reply["skills"]?.object?.count == 4)
    #expect(reply["filteredData"] == nil)
  }

  @Test func metadataHasTheRealShape() throws {
    let server = try TestServer()
    let reply = try server.json(
      "/cms/getSkillMetadata.json",
      [("model", "general"), ("group", "Knowledge"), ("language", "en"), ("skill", "Synonyms")])
    #expect(reply.keys == ["skill_metadata", "accepted", "message", "session"])
    #expect(reply["message"] == "Success: Fetched Skill's Metadata")
    let metadata = try #require(reply["skill_metadata"]?.object)
    #expect(
      metadata.keys == [
        "model", "group", "language", "developer_privacy_policy", "descriptions", "image", "author",
        "author_url", "author_email", "skill_name", "protected", "reviewed", "editable",
        "staffPick",
        "systemSkill", "terms_of_use", "dynamic_content", "examples", "skill_rating", "usage_count",
        "skill_tag", "lastModifiedTime", "creationTime", "supported_languages", "lastAccessTime",
      ])
    #expect(metadata["developer_privacy_policy"] == .null)
    #expect(metadata["terms_of_use"] == .null)
    #expect(metadata["descriptions"] == "Points you to synonyms of a word")
    #expect(metadata["dynamic_content"] == true)
    #expect(metadata["examples"] == ["synonyms of happy"])
    #expect(metadata["skill_rating"]?["positive"] == "0")
    #expect(metadata["skill_rating"]?["stars"]?["avg_star"] == 0)
    #expect(metadata["supported_languages"] == [["language": "en", "name": "Synonyms"]])
    let modified = try #require(metadata["lastModifiedTime"]?.string)
    #expect(modified.count == 20 && modified.hasSuffix("Z"))
  }

  @Test func supportedLanguagesListEveryLanguageOfATag() throws {
    let server = try TestServer()
    let reply = try server.json(
      "/cms/getSkillMetadata.json",
      [
        ("model", "general"), ("group", "Games, Trivia and Accessories"), ("language", "de"),
        ("skill", "Flip a coin"),
      ])
    #expect(reply["skill_metadata"]?["skill_name"] == "Münzwurf")
    #expect(
      reply["skill_metadata"]?["supported_languages"]
        == [["language": "de", "name": "Flip a coin"], ["language": "en", "name": "Flip a coin"]])
  }

  @Test func metadataOfUnknownSkillsAndMissingParameters() throws {
    let server = try TestServer()
    let unknown = try server.json(
      "/cms/getSkillMetadata.json",
      [("model", "general"), ("group", "Knowledge"), ("language", "en"), ("skill", "Nope")])
    #expect(unknown["accepted"] == true)
    let metadata = try #require(unknown["skill_metadata"]?.object)
    #expect(metadata["skill_name"] == .null)
    #expect(metadata["examples"] == .null)
    #expect(metadata["supported_languages"] == nil)
    #expect(metadata["lastAccessTime"] == nil)
    #expect(metadata["creationTime"] == "1970-01-01T00:00:00Z")
    let missing = try server.json(
      "/cms/getSkillMetadata.json", [("model", "general"), ("group", "Knowledge")])
    #expect(missing["accepted"] == false)
    #expect(missing["message"] == "Error: Bad parameter call")
  }
}
