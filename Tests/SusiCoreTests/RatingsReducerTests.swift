import SusiCore
import SusiCoreTesting
import Testing

@Suite struct RatingsReducerTests {
  private static let expiredReason =
    "the session of ada@example.org expired at \(Fixture.t0); log in again"

  // MARK: submitRating

  @Test(arguments: [0, 6, -1, 100, Int.min, Int.max])
  func rejectsStarsOutsideOneToFive(stars: Int) {
    // The stars are checked first: an unknown skill or a missing login does not hide the reason.
    var t = ReducerTester()
    t.send(
      .submitRating(.init(group: "Nope", skill: "Nothing", stars: stars)),
      rejected: "stars must be 1 to 5, not \(stars)")
  }

  /// A skill no loaded list has shown is looked up by the runner first; its result carries the
  /// skill, so the state (live and replayed) learns it from the log.
  @Test func ratingASkillThatIsNotLoadedAsksTheRunnerToLookItUpFirst() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    let asked = t.send(
      .submitRating(.init(group: "Games", skill: "Synonyms", stars: 4)),
      { $0.inFlight[1] = InFlightRequest(type: "submitRating", since: at) },
      effects: [
        .resolvingSkill(
          .rateSkill(
            server: "embedded", group: "Games", skill: "Synonyms", language: "en", stars: 4))
      ])
    let found = Skill(tag: "Synonyms", group: "Games", language: "en", name: "Synonyms")
    let counts = RatingAggregate(fourStar: 1, average: 4, total: 1)
    t.receive(
      .ratingSubmitted(
        .init(group: "Games", skill: "Synonyms", stars: 4, ratings: counts, resolved: found)),
      cause: asked
    ) {
      var rated = found
      rated.rating = counts
      $0.skills["Games"]?["Synonyms"] = rated
      $0.userRatings[SkillID(group: "Games", skill: "Synonyms")] = UserRating(stars: 4)
      $0.inFlight = [:]
    }
  }

  @Test func aSkillThatIsNotLoadedIsLookedUpInTheAskedThenThePreferredLanguage() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare {
      $0.groups.append("Music")
      $0.settings["prefLanguage"] = .string("de")
    }
    t.send(
      .submitRating(.init(group: "Music", skill: "Radio", stars: 2)),
      { $0.inFlight[1] = InFlightRequest(type: "submitRating", since: at) },
      effects: [
        .resolvingSkill(
          .rateSkill(server: "embedded", group: "Music", skill: "Radio", language: "de", stars: 2))
      ])
    t.send(
      .submitRating(.init(group: "Music", skill: "Radio", stars: 2, language: "fr")),
      { $0.inFlight[2] = InFlightRequest(type: "submitRating", since: at) },
      effects: [
        .resolvingSkill(
          .rateSkill(server: "embedded", group: "Music", skill: "Radio", language: "fr", stars: 2))
      ])
  }

  @Test func aSkillTheServerDoesNotKnowEndsTheRequestWithItsError() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    let asked = t.send(
      .submitRating(.init(group: "Games", skill: "Ghost", stars: 4)),
      { $0.inFlight[1] = InFlightRequest(type: "submitRating", since: at) },
      effects: [
        .resolvingSkill(
          .rateSkill(server: "embedded", group: "Games", skill: "Ghost", language: "en", stars: 4))
      ])
    let error = RequestError(kind: .notFound, message: "unknown skill 'Ghost' in group 'Games'")
    t.receive(.requestFailed(.init(cause: asked, error: error)), cause: asked) {
      $0.inFlight = [:]
      $0.lastErrors["submitRating"] = error
    }
  }

  @Test func rejectsAnUnknownGroupOrAnEmptySkillNameBeforeAnyRequest() {
    var t = ReducerTester.loggedIn()
    t.send(
      .submitRating(.init(group: "Nope", skill: "Radio", stars: 4)),
      rejected: "unknown group 'Nope'")
    t.send(
      .submitRating(.init(group: "Games", skill: " ", stars: 4)),
      rejected: "the skill name is empty")
    t.send(
      .loadUserRating(.init(group: "Nope", skill: "Radio")),
      rejected: "unknown group 'Nope'")
    t.send(
      .loadUserRating(.init(group: "Games", skill: "")),
      rejected: "the skill name is empty")
  }

  @Test func rejectsRatingWhileLoggedOut() {
    var t = ReducerTester.loggedIn()
    t.prepare { $0.session = nil }
    t.send(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 5)),
      rejected: "log in first to rate skills")
  }

  @Test(arguments: [-60_000, -1, 0] as [Int64])
  func anExpiredSessionIsRejectedAndEnded(expiresIn: Int64) {
    var t = ReducerTester.loggedIn(expiresAt: Fixture.t0.adding(milliseconds: expiresIn))
    let expiry = Fixture.t0.adding(milliseconds: expiresIn)
    t.send(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 5)),
      effects: [.logout(server: "embedded", reason: "session expired")],
      rejected: "the session of ada@example.org expired at \(expiry); log in again")
  }

  @Test func aSessionIsGoodUntilTheMomentItExpires() {
    var t = ReducerTester.loggedIn(expiresAt: Fixture.t0.adding(milliseconds: 1))
    let at = t.now
    t.send(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 5)),
      { $0.inFlight[1] = InFlightRequest(type: "submitRating", since: at) },
      effects: [
        .rateSkill(
          server: "embedded", group: "Knowledge", skill: "Synonyms", language: "en", stars: 5)
      ])
    t.advance(by: 1)
    t.send(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 4)),
      effects: [.logout(server: "embedded", reason: "session expired")],
      rejected:
        "the session of ada@example.org expired at \(at.adding(milliseconds: 1)); log in again")
  }

  @Test(arguments: 1...5)
  func submitRatingAsksTheServerInTheSkillsLanguage(stars: Int) {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare { $0.settings["prefLanguage"] = .string("fr") }
    t.send(
      .submitRating(.init(group: "Games", skill: "Flip a coin", stars: stars)),
      { $0.inFlight[1] = InFlightRequest(type: "submitRating", since: at) },
      effects: [
        .rateSkill(
          server: "embedded", group: "Games", skill: "Flip a coin", language: "de", stars: stars)
      ])
  }

  @Test func submitRatingPrefersTheLanguageAskedAndIsNeverSuperseded() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.send(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 2, language: "es")),
      { $0.inFlight[1] = InFlightRequest(type: "submitRating", since: at) },
      effects: [
        .rateSkill(
          server: "embedded", group: "Knowledge", skill: "Synonyms", language: "es", stars: 2)
      ])
    t.send(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 3)),
      { $0.inFlight[2] = InFlightRequest(type: "submitRating", since: at) },
      effects: [
        .rateSkill(
          server: "embedded", group: "Knowledge", skill: "Synonyms", language: "en", stars: 3)
      ])
  }

  @Test func ratingSubmittedUpdatesTheAggregateAndTheUsersRating() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare { $0.lastErrors = ["submitRating": Fixture.error()] }
    let asked = t.send(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 4)),
      { $0.inFlight[1] = InFlightRequest(type: "submitRating", since: at) },
      effects: [
        .rateSkill(
          server: "embedded", group: "Knowledge", skill: "Synonyms", language: "en", stars: 4)
      ])
    t.receive(
      .ratingSubmitted(
        .init(group: "Knowledge", skill: "Synonyms", stars: 4, ratings: Fixture.ratings)),
      cause: asked
    ) {
      $0.skills["Knowledge"]?["Synonyms"]?.rating = Fixture.ratings
      $0.userRatings[Fixture.synonyms.id] = UserRating(stars: 4)
      $0.inFlight = [:]
      $0.lastErrors = [:]
    }
  }

  @Test func ratingSubmittedKeepsTheThumbsAndFeedbackCountsTheReplyLacks() {
    var t = ReducerTester.loggedIn()
    t.prepare {
      $0.skills["Knowledge"]?["Synonyms"]?.rating = RatingAggregate(
        fiveStar: 1, average: 5, total: 1, positive: 7, negative: 2, feedbackCount: 3,
        bookmarkCount: 1)
      $0.inFlight[1] = InFlightRequest(type: "submitRating", since: Fixture.t0)
    }
    let reply = RatingAggregate(fourStar: 1, fiveStar: 1, average: 4.5, total: 2)
    t.receive(
      .ratingSubmitted(.init(group: "Knowledge", skill: "Synonyms", stars: 4, ratings: reply)),
      cause: 1
    ) {
      $0.skills["Knowledge"]?["Synonyms"]?.rating = RatingAggregate(
        fourStar: 1, fiveStar: 1, average: 4.5, total: 2, positive: 7, negative: 2,
        feedbackCount: 3, bookmarkCount: 1)
      $0.userRatings[Fixture.synonyms.id] = UserRating(stars: 4)
      $0.inFlight = [:]
    }
  }

  @Test func ratingSubmittedForASkillNoLongerLoadedRecordsOnlyTheUsersRating() {
    var t = ReducerTester.loggedIn()
    t.prepare { $0.inFlight[1] = InFlightRequest(type: "loadUserRating", since: Fixture.t0) }
    t.receive(
      .ratingSubmitted(.init(group: "Music", skill: "Radio", stars: 1, ratings: Fixture.ratings)),
      cause: 1
    ) {
      $0.userRatings[Fixture.radio.id] = UserRating(stars: 1)
    }
  }

  // MARK: loadUserRating

  @Test func loadUserRatingAsksTheServer() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    let key = "loadUserRating:Games/Flip a coin"
    t.send(
      .loadUserRating(.init(group: "Games", skill: "Flip a coin")),
      { $0.inFlight[1] = InFlightRequest(type: "loadUserRating", since: at, key: key) },
      effects: [
        .fetchUserRating(server: "embedded", group: "Games", skill: "Flip a coin", language: "de")
      ])
    t.send(
      .loadUserRating(.init(group: "Games", skill: "Flip a coin", language: "en")),
      { $0.inFlight[2] = InFlightRequest(type: "loadUserRating", since: at, key: key) },
      effects: [
        .supersede(seq: 1),
        .fetchUserRating(server: "embedded", group: "Games", skill: "Flip a coin", language: "en"),
      ])
    t.send(
      .loadUserRating(.init(group: "Knowledge", skill: "Synonyms")),
      {
        $0.inFlight[3] = InFlightRequest(
          type: "loadUserRating", since: at, key: "loadUserRating:Knowledge/Synonyms")
      },
      effects: [
        .fetchUserRating(server: "embedded", group: "Knowledge", skill: "Synonyms", language: "en")
      ])
  }

  @Test func loadUserRatingRejectsALoggedOutUserWhetherOrNotTheSkillIsLoaded() {
    var t = ReducerTester.loggedIn()
    t.prepare { $0.session = nil }
    t.send(
      .loadUserRating(.init(group: "Games", skill: "Radio")),
      rejected: "log in first to read your ratings")
    t.send(
      .loadUserRating(.init(group: "Knowledge", skill: "Synonyms")),
      rejected: "log in first to read your ratings")
  }

  @Test func loadUserRatingOfASkillThatIsNotLoadedLearnsTheSkillFromTheResult() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare { $0.groups.append("Music") }
    let asked = t.send(
      .loadUserRating(.init(group: "Music", skill: "Radio")),
      {
        $0.inFlight[1] = InFlightRequest(
          type: "loadUserRating", since: at, key: "loadUserRating:Music/Radio")
      },
      effects: [
        .resolvingSkill(
          .fetchUserRating(server: "embedded", group: "Music", skill: "Radio", language: "en"))
      ])
    t.receive(
      .userRatingLoaded(
        .init(group: "Music", skill: "Radio", stars: nil, resolved: Fixture.radio)),
      cause: asked
    ) {
      $0.skills["Music"] = ["Radio": Fixture.radio]
      $0.userRatings[Fixture.radio.id] = UserRating(stars: nil)
      $0.inFlight = [:]
    }
  }

  @Test func loadUserRatingWithAnExpiredSessionIsRejectedAndEnded() {
    var t = ReducerTester.loggedIn(expiresAt: Fixture.t0)
    t.send(
      .loadUserRating(.init(group: "Knowledge", skill: "Synonyms")),
      effects: [.logout(server: "embedded", reason: "session expired")],
      rejected: Self.expiredReason)
  }

  @Test func userRatingLoadedStoresTheStars() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    let asked = t.send(
      .loadUserRating(.init(group: "Knowledge", skill: "Synonyms")),
      {
        $0.inFlight[1] = InFlightRequest(
          type: "loadUserRating", since: at, key: "loadUserRating:Knowledge/Synonyms")
      },
      effects: [
        .fetchUserRating(server: "embedded", group: "Knowledge", skill: "Synonyms", language: "en")
      ])
    t.receive(
      .userRatingLoaded(.init(group: "Knowledge", skill: "Synonyms", stars: 3)), cause: asked
    ) {
      $0.userRatings[Fixture.synonyms.id] = UserRating(stars: 3)
      $0.inFlight = [:]
    }
  }

  @Test func userRatingLoadedRemembersASkillTheUserHasNotRated() {
    var t = ReducerTester.loggedIn()
    t.prepare { $0.userRatings[Fixture.synonyms.id] = UserRating(stars: 5) }
    t.receive(
      .userRatingLoaded(.init(group: "Knowledge", skill: "Synonyms", stars: nil)), cause: nil
    ) {
      $0.userRatings[Fixture.synonyms.id] = UserRating(stars: nil)
    }
  }
}
