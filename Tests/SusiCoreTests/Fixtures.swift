import SusiCore
import SusiCoreTesting
import SusiCrypto
import SusiJSON

/// Values shared by the core's test suites.
enum Fixture {
  static let email = "ada@example.org"
  static let otherEmail = "grace@example.org"
  static let t0 = ReducerTester.epoch

  static let synonyms = Skill(
    tag: "Synonyms", group: "Knowledge", language: "en", name: "Synonyms",
    description: "Finds words that mean the same", author: "SUSI Team",
    examples: ["synonym of happy"], rating: RatingAggregate(fiveStar: 2, average: 5, total: 2))
  static let flipACoin = Skill(tag: "Flip a coin", group: "Games", language: "de")
  static let radio = Skill(tag: "Radio", group: "Music", language: "en")

  static let ratings = RatingAggregate(
    oneStar: 1, twoStar: 0, threeStar: 2, fourStar: 5, fiveStar: 9, average: 4.22, total: 17,
    positive: 3, negative: 1)

  static func session(email: String = email, expiresAt: Timestamp? = nil) -> Session {
    Session(email: email, expiresAt: expiresAt, since: Timestamp(milliseconds: 1_700_000_000_000))
  }

  static func error(_ kind: RequestErrorKind = .network, status: Int? = nil) -> RequestError {
    RequestError(kind: kind, status: status, message: "the server could not be reached")
  }

  static func answer(_ text: String) -> AnswerAction {
    .answer(expression: text, language: "en", mood: nil)
  }

  static func history(_ query: String, at milliseconds: Int64?) -> HistoryEntry {
    HistoryEntry(
      query: query, answers: [answer("re: \(query)")],
      queryDate: milliseconds.map { Timestamp(milliseconds: $0) },
      answerDate: milliseconds.map { Timestamp(milliseconds: $0 + 250) })
  }

  /// A state with something in every field, served by `server`.
  static func populated(server: String = "http://old.example:4000") -> State {
    var state = State()
    state.server = server
    state.session = session()
    state.groups = ["Knowledge", "Games"]
    state.skills = ["Knowledge": ["Synonyms": synonyms], "Games": ["Flip a coin": flipACoin]]
    state.userRatings = [synonyms.id: UserRating(stars: 4)]
    state.settings = ["theme": .string("dark"), "speechRate": .number(0.8)]
    state.transcript = [ChatEntry(seq: 1, at: t0, speaker: .user, query: "hello")]
    state.history = [history("hi", at: 1_000)]
    state.historyRemaining = 3
    state.searches = ["swift": [SearchResult(title: "Swift", link: "https://swift.org")]]
    state.linkPreviews = [
      "https://swift.org": LinkPreview(url: "https://swift.org", title: "Swift")
    ]
    state.images = ["https://swift.org/logo.png": CachedImage(path: "/cache/ab.png", bytes: 1200)]
    state.inFlight = [90: InFlightRequest(type: "loadGroups", since: t0, key: "loadGroups")]
    state.lastErrors = ["search": error()]
    return state
  }
}

extension ReducerTester {
  /// A tester whose state has `ada@example.org` logged in and the sample skills loaded.
  static func loggedIn(expiresAt: Timestamp? = nil) -> ReducerTester {
    var tester = ReducerTester()
    tester.prepare {
      $0.session = Fixture.session(expiresAt: expiresAt)
      $0.groups = ["Knowledge", "Games"]
      $0.skills = [
        "Knowledge": ["Synonyms": Fixture.synonyms], "Games": ["Flip a coin": Fixture.flipACoin],
      ]
    }
    return tester
  }
}
