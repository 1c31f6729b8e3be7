import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiRunner
import SusiTesting
import Testing

/// Groups, skill lists, skill details and image URLs.
@Suite(.hangLimit)
struct SkillsTests {
  /// A `group=All` list as the server sends it: keyed by tag, skills from two groups, one with
  /// every null the contract allows, `positive`/`negative` as strings or ints, `avg_star` as
  /// int and as float, one rating without `bookmark_count`/`feedback_count`.
  static let allSkills = """
    {
      "accepted": true,
      "model": "general",
      "group": "All",
      "language": "en",
      "skills": {
        "Flip a coin": {
          "model": "general",
          "group": "Games, Trivia and Accessories",
          "language": "en",
          "developer_privacy_policy": null,
          "descriptions": "Ask SUSI to flip a coin for you",
          "image": "images/flip_coin.png",
          "author": "Madhav Rathi",
          "author_url": "https://github.com/madhavrathi",
          "author_email": null,
          "skill_name": "Flip a coin",
          "protected": false,
          "dynamic_content": false,
          "examples": ["flip a coin"],
          "skill_rating": {
            "negative": "0", "positive": "3", "feedback_count": 2, "bookmark_count": 1,
            "stars": {"one_star": 0, "two_star": 0, "three_star": 1, "four_star": 0,
                      "five_star": 2, "avg_star": 4.33, "total_star": 3}
          },
          "usage_count": 12,
          "skill_tag": "Flip a coin",
          "lastModifiedTime": "2020-01-18T14:37:45Z",
          "creationTime": "2017-08-20T10:11:12Z",
          "supported_languages": [{"language": "en", "name": "Flip a coin"}],
          "lastAccessTime": "2020-09-07T21:16:14.52Z"
        },
        "Synonyms": {
          "model": "general",
          "group": "Knowledge",
          "language": "en",
          "developer_privacy_policy": null,
          "descriptions": "A skill that returns the synonyms for a word",
          "image": null,
          "author": null,
          "author_url": null,
          "author_email": null,
          "skill_name": null,
          "dynamic_content": true,
          "terms_of_use": null,
          "examples": null,
          "skill_rating": {
            "negative": 1, "positive": 0,
            "stars": {"one_star": 0, "two_star": 0, "three_star": 0, "four_star": 4,
                      "five_star": 0, "avg_star": 4, "total_star": 4}
          },
          "usage_count": 0,
          "skill_tag": "Synonyms",
          "lastModifiedTime": "1970-01-01T00:00:00Z",
          "creationTime": "1970-01-01T00:00:00Z"
        }
      },
      "message": "Success: Fetched skill list",
      "session": {"identity": {"type": "host", "name": "127.0.0.1_1a2b3c4d", "anonymous": true}}
    }
    """

  static let flipACoin = Skill(
    tag: "Flip a coin", group: "Games, Trivia and Accessories", language: "en", model: "general",
    name: "Flip a coin", description: "Ask SUSI to flip a coin for you", author: "Madhav Rathi",
    authorURL: "https://github.com/madhavrathi", image: "images/flip_coin.png",
    imageURL:
      "http://127.0.0.1:4000/cms/getImage.png?model=general&language=en&group=Games%2C%20Trivia%20and%20Accessories&image=images%2Fflip_coin.png",
    examples: ["flip a coin"],
    rating: RatingAggregate(
      threeStar: 1, fiveStar: 2, average: 4.33, total: 3, positive: 3, negative: 0,
      feedbackCount: 2,
      bookmarkCount: 1),
    usageCount: 12, lastModified: "2020-01-18T14:37:45Z", created: "2017-08-20T10:11:12Z",
    languages: ["en"])

  static let synonyms = Skill(
    tag: "Synonyms", group: "Knowledge", language: "en", model: "general",
    description: "A skill that returns the synonyms for a word", dynamicContent: true,
    rating: RatingAggregate(fourStar: 4, average: 4, total: 4, positive: 0, negative: 1),
    usageCount: 0,
    lastModified: "1970-01-01T00:00:00Z", created: "1970-01-01T00:00:00Z")

  @Test func allSkillsComeFromOneRequestGroupedByTheirOwnGroup() async {
    let harness = Harness { _ in .json(Self.allSkills) }
    let result = await harness.run(.fetchSkills(server: "embedded", group: nil, language: "en"))
    #expect(result == .skillsLoaded(.init(group: nil, skills: [Self.flipACoin, Self.synonyms])))
    #expect(harness.transport.requests.count == 1)
    let request = harness.transport.requests[0]
    #expect(request.method == .get)
    #expect(
      request.url
        == "http://127.0.0.1:4000/cms/getSkillList.json?model=general&group=All&language=en")
  }

  @Test func oneGroupIsAskedForWithItsNamePercentEncoded() async {
    let harness = Harness { _ in
      .json(#"{"accepted":true,"group":"Games, Trivia and Accessories","skills":{}}"#)
    }
    let result = await harness.run(
      .fetchSkills(
        server: "https://susi.example/", group: "Games, Trivia and Accessories", language: "de"))
    #expect(result == .skillsLoaded(.init(group: "Games, Trivia and Accessories", skills: [])))
    #expect(
      harness.transport.requests[0].url
        == "https://susi.example/cms/getSkillList.json?model=general&group=Games%2C%20Trivia%20and%20Accessories&language=de"
    )
  }

  @Test func aTagThatCollidesAcrossGroupsKeepsTheLaterSkill() async {
    // With group=All the server's map keeps the later of two skills with one tag; a reply
    // that still repeats the key is read the same way, without a crash.
    let reply = """
      {"accepted":true,"skills":{
        "news":{"group":"News","language":"en","skill_name":"News A"},
        "joke":{"group":"Novelty and Humour","language":"en"},
        "news":{"group":"Knowledge","language":"en","skill_name":"News B"}}}
      """
    let harness = Harness { _ in .json(reply) }
    guard
      case .skillsLoaded(let loaded) = await harness.run(
        .fetchSkills(server: "embedded", group: nil, language: "en"))
    else {
      Issue.record("expected skillsLoaded")
      return
    }
    #expect(
      loaded.skills.map(\.id) == [
        SkillID(group: "Knowledge", skill: "news"),
        SkillID(group: "Novelty and Humour", skill: "joke"),
      ])
    #expect(loaded.skills[0].name == "News B")
  }

  @Test func groupAndLanguageFallBackToTheRequestWhenMetadataLacksThem() async {
    let reply =
      #"{"accepted":true,"group":"Knowledge","language":"en,de","skills":{"bare":{"skill_name":"Bare","skill_rating":null,"examples":[1,"x"]}}}"#
    let harness = Harness { _ in .json(reply) }
    let result = await harness.run(
      .fetchSkills(server: "embedded", group: "Knowledge", language: "de"))
    let expected = Skill(
      tag: "bare", group: "Knowledge", language: "de", name: "Bare", examples: ["x"])
    #expect(result == .skillsLoaded(.init(group: "Knowledge", skills: [expected])))
  }

  @Test func anUnknownGroupGivesNoSkills() async {
    let harness = Harness { _ in .json(#"{"accepted":true,"skills":{}}"#) }
    #expect(
      await harness.run(.fetchSkills(server: "embedded", group: "Nope", language: "en"))
        == .skillsLoaded(.init(group: "Nope", skills: [])))
  }

  @Test func groupsAreLoadedWithTheModel() async {
    let harness = Harness { _ in
      .json(#"{"accepted":true,"groups":["Knowledge","", 3, "Music and Audio"]}"#)
    }
    #expect(
      await harness.run(.fetchGroups(server: "embedded", language: "en"))
        == .groupsLoaded(.init(groups: ["Knowledge", "Music and Audio"])))
    #expect(
      harness.transport.requests[0].url == "http://127.0.0.1:4000/cms/getGroups.json?model=general")
  }

  @Test func oneSkillsMetadataIsLoaded() async {
    let reply = """
      {"skill_metadata": {"model":"general","group":"Knowledge","language":"en","skill_name":"Synonyms",
       "descriptions":"Synonyms of a word","image":"images/synonyms.png","examples":["Synonym of happy"],
       "skill_rating":{"negative":"0","positive":"0","stars":{"one_star":0,"two_star":0,"three_star":0,
       "four_star":0,"five_star":0,"avg_star":0,"total_star":0}},"skill_tag":"Synonyms"},
       "accepted": true, "message": "Success: Fetched Skill's Metadata"}
      """
    let harness = Harness { _ in .json(reply) }
    let result = await harness.run(
      .fetchSkill(server: "embedded", group: "Knowledge", skill: "Synonyms", language: "en"))
    let expected = Skill(
      tag: "Synonyms", group: "Knowledge", name: "Synonyms", description: "Synonyms of a word",
      image: "images/synonyms.png",
      imageURL:
        "http://127.0.0.1:4000/cms/getImage.png?model=general&language=en&group=Knowledge&image=images%2Fsynonyms.png",
      examples: ["Synonym of happy"], rating: RatingAggregate(positive: 0, negative: 0))
    #expect(result == .skillLoaded(.init(skill: expected)))
    #expect(
      harness.transport.requests[0].parameters
        == ["model": "general", "group": "Knowledge", "language": "en", "skill": "Synonyms"])
  }

  @Test func anUnknownSkillsDefaultMetadataIsStillASkill() async {
    let reply =
      #"{"skill_metadata":{"model":"general","group":"Knowledge","language":"en","skill_name":null,"image":null,"examples":null,"author":null},"accepted":true}"#
    let harness = Harness { _ in .json(reply) }
    let result = await harness.run(
      .fetchSkill(server: "embedded", group: "Knowledge", skill: "ghost", language: "en"))
    #expect(result == .skillLoaded(.init(skill: Skill(tag: "ghost", group: "Knowledge"))))
  }

  @Test func aMissingParameterReplyIsAServerFailure() async {
    let harness = Harness { _ in
      .json(#"{"accepted": false, "message": "Error: Bad parameter call"}"#)
    }
    let result = await harness.run(
      .fetchSkill(server: "embedded", group: "Knowledge", skill: "x", language: "en"))
    #expect(result.failure == RequestError(kind: .server, message: "Error: Bad parameter call"))
  }

  @Test func theEmbeddedServerMustBeRunning() async {
    let harness = Harness(configure: { $0.embeddedServerURL = nil }, respond: { _ in .json("{}") })
    let result = await harness.run(.fetchGroups(server: "embedded", language: "en"))
    #expect(result.failure?.kind == .network)
    #expect(result.failure?.message.contains("--server") == true)
    #expect(harness.transport.requests.isEmpty)
  }
}
