import SusiCore
import SusiCoreTesting
import Testing

@Suite struct RequestsReducerTests {
  static let loginOnlyTypes = ["submitRating", "loadUserRating", "changeSettings", "syncSettings"]

  /// Every successful result, with the request types it completes.
  static let completions: [(Action, [String])] = [
    (.signedUp(.init(email: Fixture.email, message: "ok")), ["signup"]),
    (.loggedIn(.init(email: Fixture.email, expiresAt: nil)), ["login"]),
    (.loggedOut(.init()), ["logout"]),
    (.groupsLoaded(.init(groups: ["Knowledge"])), ["loadGroups"]),
    (.skillsLoaded(.init(group: nil, skills: [Fixture.radio])), ["loadSkills"]),
    (.skillLoaded(.init(skill: Fixture.radio)), ["loadSkill"]),
    (
      .ratingSubmitted(.init(group: "Music", skill: "Radio", stars: 3, ratings: Fixture.ratings)),
      ["submitRating"]
    ),
    (.userRatingLoaded(.init(group: "Music", skill: "Radio", stars: 2)), ["loadUserRating"]),
    (.settingsChanged(.init(settings: ["theme": .string("dark")])), ["changeSettings"]),
    (.settingsSynced(.init(settings: [:])), ["syncSettings"]),
    (.messageReceived(.init(query: "q", answers: [])), ["sendMessage", "plannedAnswer"]),
    (.historyLoaded(.init(entries: [], remaining: 0)), ["loadHistory"]),
    (.websearchLoaded(.init(query: "q", results: [])), ["search"]),
    (.linkPreviewLoaded(.init(url: "https://swift.org")), ["loadLinkPreview"]),
    (
      .imageCached(.init(url: "https://swift.org/a.png", path: "/c/a.png", bytes: 1)),
      ["cacheImage"]
    ),
  ]

  static let requestTypes = [
    "signup", "login", "logout", "loadGroups", "loadSkills", "loadSkill", "submitRating",
    "loadUserRating",
    "changeSettings", "syncSettings", "sendMessage", "plannedAnswer", "loadHistory", "search",
    "loadLinkPreview", "cacheImage",
  ]

  // MARK: cancelRequest

  @Test func cancellingARequestInFlightAsksTheRunnerAndChangesNothing() {
    var t = ReducerTester()
    let at = t.now
    let search = t.send(
      .search(.init(query: "swift")),
      { $0.inFlight[1] = InFlightRequest(type: "search", since: at, key: "search:swift") },
      effects: [.webSearch(query: "swift")])
    t.send(.cancelRequest(.init(seq: search)), effects: [.cancel(seq: search)])
    t.receive(
      .requestFailed(
        .init(
          cause: search, error: RequestError(kind: .cancelled, message: "cancelled by request 2"))),
      cause: search
    ) { $0.inFlight = [:] }
  }

  @Test(arguments: [0, 9, -1])
  func cancellingWhatIsNotInFlightIsRejected(seq: Int) {
    var t = ReducerTester()
    t.prepare { $0 = Fixture.populated() }
    t.send(
      .cancelRequest(.init(seq: seq)),
      rejected: "nothing is in flight for seq \(seq)")
  }

  // MARK: requestFailed

  @Test(arguments: requestTypes)
  func aFailureEndsTheRequestWhateverItsTypeAndRecordsTheError(type: String) {
    var t = ReducerTester()
    let failure = Fixture.error(.http, status: 500)
    t.prepare {
      $0.inFlight[1] = InFlightRequest(
        type: RequestType(rawValue: type), since: Fixture.t0, key: "k")
      $0.inFlight[2] = InFlightRequest(
        type: RequestType(rawValue: type), since: Fixture.t0, key: "k")
    }
    t.receive(.requestFailed(.init(cause: 1, error: failure)), cause: 1) {
      $0.inFlight[1] = nil
      $0.lastErrors[type] = failure
    }
  }

  @Test func aNewerFailureReplacesTheErrorOfItsType() {
    var t = ReducerTester()
    let first = Fixture.error(.timeout)
    let second = Fixture.error(.http, status: 503)
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: "loadGroups", since: Fixture.t0, key: "loadGroups")
      $0.inFlight[2] = InFlightRequest(type: "loadGroups", since: Fixture.t0, key: "loadGroups")
      $0.lastErrors["search"] = first
    }
    t.receive(.requestFailed(.init(cause: 1, error: first)), cause: 1) {
      $0.inFlight[1] = nil
      $0.lastErrors["loadGroups"] = first
    }
    t.receive(.requestFailed(.init(cause: 2, error: second)), cause: 2) {
      $0.inFlight = [:]
      $0.lastErrors["loadGroups"] = second
    }
  }

  @Test(arguments: [RequestErrorKind.cancelled, .superseded])
  func aCancelledOrSupersededRequestRecordsNoError(kind: RequestErrorKind) {
    var t = ReducerTester.loggedIn()
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: "loadGroups", since: Fixture.t0, key: "loadGroups")
      $0.lastErrors = ["loadGroups": Fixture.error()]
    }
    t.receive(
      .requestFailed(.init(cause: 1, error: RequestError(kind: kind, message: "replaced"))),
      cause: 1
    ) {
      $0.inFlight = [:]
    }
  }

  /// A newer request with the same key supersedes the older one; the older one's result then
  /// says `superseded` and ends it, while the newer one stays in flight.
  @Test func aSupersededRequestEndsWithItsResultAndTheNewerOneGoesOn() {
    var t = ReducerTester()
    let at = t.now
    let older = t.send(
      .loadGroups(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadGroups", since: at, key: "loadGroups") },
      effects: [.fetchGroups(server: "embedded", language: "en")])
    t.send(
      .loadGroups(.init()),
      { $0.inFlight[2] = InFlightRequest(type: "loadGroups", since: at, key: "loadGroups") },
      effects: [.supersede(seq: older), .fetchGroups(server: "embedded", language: "en")])
    let replaced = RequestError(
      kind: .superseded, message: "replaced by the same request of event 2")
    t.receive(.requestFailed(.init(cause: older, error: replaced)), cause: older) {
      $0.inFlight[1] = nil
    }
  }

  @Test func aFailureOfNoKnownRequestIsRecordedAsUnknown() {
    var t = ReducerTester()
    let failure = Fixture.error(.network)
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: "search", since: Fixture.t0, key: "search:x")
    }
    t.receive(.requestFailed(.init(cause: 42, error: failure)), cause: 42) {
      $0.lastErrors["unknown"] = failure
    }
    t.receive(
      .requestFailed(.init(cause: 43, error: RequestError(kind: .cancelled, message: "gone"))),
      cause: 43)
  }

  @Test(arguments: loginOnlyTypes)
  func anUnauthorizedLoginOnlyRequestWhileLoggedInEndsTheSession(type: String) {
    var t = ReducerTester.loggedIn()
    let failure = Fixture.error(.unauthorized, status: 401)
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: RequestType(rawValue: type), since: Fixture.t0)
    }
    t.receive(
      .requestFailed(.init(cause: 1, error: failure)), cause: 1,
      {
        $0.inFlight = [:]
        $0.lastErrors[type] = failure
      },
      effects: [
        .logout(
          server: "embedded",
          reason: "the server no longer accepts the session of ada@example.org; log in again")
      ])
  }

  @Test(arguments: loginOnlyTypes)
  func anUnauthorizedLoginOnlyRequestWhileLoggedOutOnlyRecordsTheError(type: String) {
    var t = ReducerTester()
    let failure = Fixture.error(.unauthorized, status: 401)
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: RequestType(rawValue: type), since: Fixture.t0)
    }
    t.receive(.requestFailed(.init(cause: 1, error: failure)), cause: 1) {
      $0.inFlight = [:]
      $0.lastErrors[type] = failure
    }
  }

  @Test(arguments: ["loadGroups", "loadSkills", "sendMessage", "login", "logout", "search"])
  func anUnauthorizedRequestThatNeedsNoLoginKeepsTheSession(type: String) {
    var t = ReducerTester.loggedIn()
    let failure = Fixture.error(.unauthorized, status: 401)
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: RequestType(rawValue: type), since: Fixture.t0)
    }
    t.receive(.requestFailed(.init(cause: 1, error: failure)), cause: 1) {
      $0.inFlight = [:]
      $0.lastErrors[type] = failure
    }
  }

  @Test func anUnauthorizedFailureOfNoKnownRequestKeepsTheSession() {
    var t = ReducerTester.loggedIn()
    let failure = Fixture.error(.unauthorized, status: 401)
    t.receive(.requestFailed(.init(cause: 8, error: failure)), cause: 8) {
      $0.lastErrors["unknown"] = failure
    }
  }

  @Test(arguments: [RequestErrorKind.http, .server, .timeout, .badResponse])
  func otherFailuresOfLoginOnlyRequestsKeepTheSession(kind: RequestErrorKind) {
    var t = ReducerTester.loggedIn()
    let failure = Fixture.error(kind, status: kind == .http ? 403 : nil)
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: "syncSettings", since: Fixture.t0, key: "syncSettings")
    }
    t.receive(.requestFailed(.init(cause: 1, error: failure)), cause: 1) {
      $0.inFlight = [:]
      $0.lastErrors["syncSettings"] = failure
    }
  }

  // MARK: actionRejected

  @Test func actionRejectedChangesNothing() {
    var t = ReducerTester()
    t.prepare { $0 = Fixture.populated() }
    t.receive(.actionRejected(.init(reason: "stars must be 1 to 5, not 9")), cause: 90)
    t.receive(.actionRejected(.init(reason: "nobody is logged in")), cause: nil)
  }

  @Test func aRejectedIntentComesBackAsActionRejectedAndChangesNothing() {
    var t = ReducerTester()
    let rejected = t.send(.logout, rejected: "nobody is logged in")
    t.receive(.actionRejected(.init(reason: "nobody is logged in")), cause: rejected)
  }

  // MARK: superseding and completion

  @Test func supersedingCancelsEveryOlderRequestWithTheKeyInSeqOrder() {
    var t = ReducerTester(firstSeq: 20)
    let at = t.now
    t.prepare {
      for seq in [12, 3, 7] {
        $0.inFlight[seq] = InFlightRequest(type: "loadGroups", since: Fixture.t0, key: "loadGroups")
      }
      $0.inFlight[5] = InFlightRequest(type: "loadSkills", since: Fixture.t0, key: "loadSkills:*")
      $0.inFlight[6] = InFlightRequest(type: "cacheImage", since: Fixture.t0)
    }
    t.send(
      .loadGroups(.init()),
      { $0.inFlight[20] = InFlightRequest(type: "loadGroups", since: at, key: "loadGroups") },
      effects: [
        .supersede(seq: 3), .supersede(seq: 7), .supersede(seq: 12),
        .fetchGroups(server: "embedded", language: "en"),
      ])
  }

  @Test func aResultCompletesOnlyTheRequestTypesItAnswers() {
    for (result, completes) in Self.completions {
      for type in Self.requestTypes {
        var state = State()
        state.inFlight[1] = InFlightRequest(
          type: RequestType(rawValue: type), since: Fixture.t0, key: "k")
        state.inFlight[2] = InFlightRequest(
          type: RequestType(rawValue: type), since: Fixture.t0, key: "k")
        state.lastErrors = [type: Fixture.error(), "other": Fixture.error()]
        let event = Event(seq: 3, at: Fixture.t0, origin: .runner, cause: 1, action: result)
        _ = reduce(&state, event)
        let completed = completes.contains(type)
        let name = "\(result.type) for a \(type) request"
        #expect((state.inFlight[1] == nil) == completed, "\(name): in flight")
        #expect(state.inFlight[2] != nil, "\(name): another request")
        #expect((state.lastErrors[type] == nil) == completed, "\(name): error")
        #expect(state.lastErrors["other"] != nil, "\(name): another error")
      }
    }
  }

  @Test func serverChangedCancelsEveryRequestToTheOldServer() {
    var t = ReducerTester()
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: "loadGroups", since: Fixture.t0, key: "loadGroups")
      $0.inFlight[3] = InFlightRequest(type: "sendMessage", since: Fixture.t0)
      $0.lastErrors = ["loadGroups": Fixture.error()]
    }
    // The change itself completes nothing: the requests end when their cancellations report.
    t.receive(
      .serverChanged(.init(url: "http://other.example")), cause: 1,
      {
        $0.server = "http://other.example"
        $0.lastErrors = [:]
      }, effects: [.cancel(seq: 1), .cancel(seq: 3)])
  }

  @Test func aResultWithoutACauseCompletesNothing() {
    var t = ReducerTester()
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: "loadGroups", since: Fixture.t0, key: "loadGroups")
      $0.lastErrors = ["loadGroups": Fixture.error()]
    }
    t.receive(.groupsLoaded(.init(groups: ["A"])), cause: nil) { $0.groups = ["A"] }
  }

  @Test func loginFailedEndsOnlyALoginRequest() {
    for type in Self.requestTypes {
      var state = State()
      state.inFlight[1] = InFlightRequest(type: RequestType(rawValue: type), since: Fixture.t0)
      let event = Event(
        seq: 2, at: Fixture.t0, origin: .runner, cause: 1,
        action: .loginFailed(.init(email: Fixture.email, error: Fixture.error())))
      _ = reduce(&state, event)
      #expect((state.inFlight[1] == nil) == (type == "login"), "loginFailed for a \(type) request")
      #expect(state.lastErrors == ["login": Fixture.error()])
    }
  }

  @Test func replayingTheSameEventsGivesTheSameState() {
    var events: [Event] = []
    var seq = 0
    func add(_ action: Action, cause: Int? = nil) {
      seq += 1
      events.append(
        Event(
          seq: seq, at: Fixture.t0.adding(milliseconds: Int64(seq) * 10), origin: .test,
          cause: cause, action: action))
    }
    add(.login(.init(email: Fixture.email, password: Secret("pw"))))
    add(.loggedIn(.init(email: Fixture.email, expiresAt: nil)), cause: 1)
    add(.loadSkills(.init()))
    add(.skillsLoaded(.init(group: nil, skills: [Fixture.synonyms, Fixture.radio])), cause: 3)
    add(.submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 5)))
    add(
      .ratingSubmitted(
        .init(group: "Knowledge", skill: "Synonyms", stars: 5, ratings: Fixture.ratings)), cause: 5)
    add(.sendMessage(.init(query: "hi")))
    add(.messageReceived(.init(query: "hi", answers: [Fixture.answer("hello")])), cause: 7)
    add(.submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 9)))
    var first = State()
    var second = State()
    let firstEffects = events.map { reduce(&first, $0) }
    let secondEffects = events.map { reduce(&second, $0) }
    #expect(first == second)
    #expect(firstEffects == secondEffects)
    #expect(first.canonicalJSON() == second.canonicalJSON())
    #expect(first.inFlight.isEmpty)
    #expect(first.userRatings == [Fixture.synonyms.id: UserRating(stars: 5)])
  }
}
