import SusiClock
import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiJSON
import SusiRunner
import SusiStore
import SusiTesting
import Synchronization
import Testing

@testable import SusiRunner

/// Five-star ratings and user settings: both need a logged-in user.
@Suite(.hangLimit)
struct RatingsAndSettingsTests {
  static let token = "6O7cqoMbzlClxPwg1is31Tz5pjVwo3"

  /// A harness logged in to the embedded server, answering everything else with `reply`.
  static func loggedIn(_ reply: @escaping @Sendable (TransportRequest) -> TransportResponse) async
    -> Harness
  {
    let harness = Harness { request in
      if request.path == "/aaa/login.json" {
        return .json(#"{"accepted":true,"valid_seconds":604800,"access_token":"\#(Self.token)"}"#)
      }
      return reply(request)
    }
    let login = await harness.run(
      .login(
        server: "embedded", email: "user@example.com", password: Secret("Secret-1"),
        validSeconds: nil), cause: 100)
    #expect(
      login
        == .loggedIn(
          .init(
            email: "user@example.com",
            expiresAt: harness.clock.now().adding(milliseconds: 604_800_000))))
    return harness
  }

  @Test func ratingASkillPostsTheStarsAndReturnsTheNewAggregate() async {
    let harness = await Self.loggedIn { _ in
      .json(
        #"{"accepted": true, "message": "Skill ratings updated", "ratings": {"one_star": 0, "two_star": 0, "three_star": 1, "four_star": 0, "five_star": 2, "avg_star": 4.33, "total_star": 3}, "session": {"identity": {"type": "email", "name": "user@example.com", "anonymous": false}}}"#
      )
    }
    let result = await harness.run(
      .rateSkill(
        server: "embedded", group: "Games, Trivia and Accessories", skill: "Flip a coin",
        language: "en", stars: 5))
    let aggregate = RatingAggregate(threeStar: 1, fiveStar: 2, average: 4.33, total: 3)
    #expect(
      result
        == .ratingSubmitted(
          .init(
            group: "Games, Trivia and Accessories", skill: "Flip a coin", stars: 5,
            ratings: aggregate)))
    let request = harness.transport.requests[1]
    #expect(request.method == .post)
    #expect(request.query == nil)
    #expect(
      String(decoding: request.body, as: UTF8.self)
        == "model=general&group=Games%2C%20Trivia%20and%20Accessories&language=en&skill=Flip%20a%20coin&stars=5&access_token=\(Self.token)"
    )
  }

  @Test func aRatingReplyWithoutRatingsIsABadResponse() async {
    let harness = await Self.loggedIn { _ in .json(#"{"accepted":true}"#) }
    let result = await harness.run(
      .rateSkill(server: "embedded", group: "G", skill: "s", language: "en", stars: 3))
    #expect(result.failure?.kind == .badResponse)
  }

  @Test func ratingAMissingSkillReportsTheServersMessage() async {
    let harness = await Self.loggedIn { _ in .jettyError(404, "Skill does not exist.") }
    let result = await harness.run(
      .rateSkill(server: "embedded", group: "G", skill: "s", language: "en", stars: 3))
    #expect(
      result.failure == RequestError(kind: .http, status: 404, message: "Skill does not exist."))
  }

  @Test(
    arguments: [
      (
        #"{"accepted": true, "message": "Fetched user rating successfully", "ratings": {"email": "user@example.com", "stars": 4, "timestamp": "2018-06-01 10:22:33.456"}}"#,
        4
      ),
      (
        #"{"accepted": true, "message": "Fetched user rating successfully", "ratings": {"uuid": "5f4dcc3b", "stars": "2", "timestamp": "2018-06-01 10:22:33.456"}}"#,
        2
      ),
      (#"{"accepted": true, "message": "Skill not yet rated by the user"}"#, nil),
      (#"{"accepted": true, "message": "Skill not rated by the user"}"#, nil),
    ] as [(String, Int?)])
  func everyUserRatingReplyVariantIsAnAnswer(reply: String, stars: Int?) async {
    let harness = await Self.loggedIn { _ in .json(reply) }
    let result = await harness.run(
      .fetchUserRating(server: "embedded", group: "Knowledge", skill: "Synonyms", language: "en"))
    #expect(result == .userRatingLoaded(.init(group: "Knowledge", skill: "Synonyms", stars: stars)))
    let request = harness.transport.requests[1]
    #expect(request.method == .get)
    #expect(
      request.parameters
        == [
          "model": "general", "group": "Knowledge", "language": "en", "skill": "Synonyms",
          "access_token": Self.token,
        ])
  }

  @Test func severalSettingsGoInOneCallAsTheServersText() async {
    let harness = await Self.loggedIn { _ in
      .json(#"{"accepted":true,"message":"You successfully changed settings of your account!"}"#)
    }
    let settings: [String: SettingValue] = [
      "theme": .string("dark"), "speechRate": .number(0.8), "enterAsSend": .bool(true),
      "speechPitch": .number(2),
      "notASetting": .string("x"),
    ]
    let result = await harness.run(.storeSettings(server: "embedded", settings: settings))
    var sent = settings
    sent["notASetting"] = nil
    #expect(result == .settingsChanged(.init(settings: sent)))
    #expect(harness.transport.requests.count == 2)
    let request = harness.transport.requests[1]
    #expect(request.method == .post)
    #expect(
      String(decoding: request.body, as: UTF8.self)
        == "enterAsSend=true&speechRate=0.8&speechPitch=2&theme=dark&access_token=\(Self.token)")
  }

  @Test func settingsNoneOfWhichTheServerKeepsAreNotSent() async {
    let harness = await Self.loggedIn { _ in .json(#"{"accepted":true}"#) }
    let result = await harness.run(
      .storeSettings(server: "embedded", settings: ["hotwordRecognition": .bool(true)]))
    #expect(result.failure?.kind == .server)
    #expect(harness.transport.requests.count == 1)
  }

  @Test func syncedSettingsArriveTyped() async {
    let harness = await Self.loggedIn { _ in
      .json(
        #"{"settings": {"theme": "dark", "speechRate": "0.8", "enterAsSend": "true", "micInput": "false", "speechPitch": 1, "checked": "maybe", "legacyKey": "v"}, "accepted": true, "message": "Success: Showing user settings"}"#
      )
    }
    let result = await harness.run(.fetchSettings(server: "embedded"))
    #expect(
      result
        == .settingsSynced(
          .init(settings: [
            "theme": .string("dark"), "speechRate": .number(0.8), "enterAsSend": .bool(true),
            "micInput": .bool(false),
            "speechPitch": .number(1), "checked": .string("maybe"), "legacyKey": .string("v"),
          ])))
    #expect(harness.transport.requests[1].parameters == ["access_token": Self.token])
  }

  @Test func neverStoredSettingsAreEmpty() async {
    let harness = await Self.loggedIn { _ in .json(#"{"settings":{},"accepted":true}"#) }
    #expect(
      await harness.run(.fetchSettings(server: "embedded")) == .settingsSynced(.init(settings: [:]))
    )
  }

  static let unknownSkillMetadata =
    #"{"skill_metadata":{"model":"general","group":"Games","language":"en","skill_name":null,"author":null,"descriptions":null},"accepted":true}"#

  @Test func aSkillLookedUpFirstIsCarriedInTheResult() async {
    let harness = await Self.loggedIn { request in
      if request.path == "/cms/getSkillMetadata.json" {
        return .json(
          #"{"skill_metadata":{"skill_name":"Dice","author":"Ann","language":"en"},"accepted":true}"#
        )
      }
      return .json(#"{"accepted":true,"ratings":{"four_star":1,"avg_star":4,"total_star":1}}"#)
    }
    let result = await harness.run(
      .resolvingSkill(
        .rateSkill(server: "embedded", group: "Games", skill: "Dice", language: "en", stars: 4)))
    guard case .ratingSubmitted(let rated) = result else {
      Issue.record("expected ratingSubmitted, got \(result)")
      return
    }
    #expect(rated.resolved?.name == "Dice")
    #expect(rated.resolved?.author == "Ann")
    #expect(rated.resolved?.group == "Games")
    #expect(
      harness.transport.requests.map(\.path).suffix(2) == [
        "/cms/getSkillMetadata.json", "/cms/fiveStarRateSkill.json",
      ])
  }

  @Test func outlandishCountsAndAveragesAreBroughtIntoRange() async {
    let harness = await Self.loggedIn { _ in
      .json(
        #"{"accepted":true,"ratings":{"one_star":9223372036854775807,"two_star":5,"three_star":-4,"avg_star":1e308}}"#
      )
    }
    let result = await harness.run(
      .rateSkill(server: "embedded", group: "Games", skill: "Dice", language: "en", stars: 4))
    guard case .ratingSubmitted(let rated) = result else {
      Issue.record("expected ratingSubmitted, got \(result)")
      return
    }
    #expect(rated.ratings.average == 5)
    #expect(rated.ratings.total == Int.max)
    #expect(rated.ratings.threeStar == 0)
  }

  @Test func aSkillTheServerDoesNotKnowIsNotFoundAndNothingMoreIsSent() async {
    let harness = await Self.loggedIn { _ in .json(Self.unknownSkillMetadata) }
    let before = harness.transport.requests.count
    let result = await harness.run(
      .resolvingSkill(
        .fetchUserRating(server: "embedded", group: "Games", skill: "Ghost", language: "en")))
    #expect(result.failure?.kind == .notFound)
    #expect(
      result.failure?.message
        == "unknown skill 'Ghost' in group 'Games': the server has no such skill in language 'en'")
    #expect(harness.transport.requests.count == before + 1)
  }

  @Test func userEndpointsNeedALogin() async {
    let harness = Harness { _ in .json(#"{"accepted":true}"#) }
    for effect in [
      Effect.fetchSettings(server: "embedded"),
      .storeSettings(server: "embedded", settings: ["theme": .string("x")]),
      .rateSkill(server: "embedded", group: "G", skill: "s", language: "en", stars: 1),
      .fetchUserRating(server: "embedded", group: "G", skill: "s", language: "en"),
    ] {
      let result = await harness.run(effect)
      #expect(result.failure?.kind == .notLoggedIn, "\(effect)")
    }
    #expect(harness.transport.requests.isEmpty)
  }

  @Test func anExpiredTokenIsNotSent() async {
    let harness = Harness { request in
      if request.path == "/aaa/login.json" {
        return .json(#"{"accepted":true,"valid_seconds":60,"access_token":"short-lived"}"#)
      }
      return .json(#"{"accepted":true,"settings":{}}"#)
    }
    _ = await harness.run(
      .login(server: "embedded", email: "u@example.com", password: Secret("pw"), validSeconds: 60))
    await harness.clock.advance(by: .milliseconds(60_000))
    let result = await harness.run(.fetchSettings(server: "embedded"), cause: 2)
    #expect(result.failure?.kind == .unauthorized)
    #expect(result.failure?.message.contains("expired") == true)
    #expect(harness.transport.requests.count == 1)
  }
}
