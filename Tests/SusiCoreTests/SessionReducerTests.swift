import SusiCore
import SusiCoreTesting
import Testing

@Suite struct SessionReducerTests {
  static let invalidEmails = [
    "", "ada", "ada@", "@example.org", "ada@example", "ada@@example.org", "ada@.example.org",
    "ada@example.org.", "a da@example.org", "ada,x@example.org", "ada;x@example.org",
    "ada@exam\tple.org", String(repeating: "a", count: 250) + "@x.org",
  ]

  // MARK: signup

  @Test func signupAsksTheServer() {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .signup(.init(email: Fixture.email, password: Secret("s3cret"))),
      { $0.inFlight[1] = InFlightRequest(type: "signup", since: at) },
      effects: [.signup(server: "embedded", email: Fixture.email, password: Secret("s3cret"))])
  }

  @Test(arguments: invalidEmails)
  func signupRejectsAnInvalidEmail(email: String) {
    var t = ReducerTester()
    t.send(
      .signup(.init(email: email, password: Secret("pw"))),
      rejected: "'\(email)' is not an email address")
  }

  @Test func signupRejectsAnEmptyPassword() {
    var t = ReducerTester()
    t.send(
      .signup(.init(email: Fixture.email, password: Secret(""))),
      rejected: "the password is empty")
  }

  @Test func signupsAreNeverSuperseded() {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .signup(.init(email: Fixture.email, password: Secret("a"))),
      { $0.inFlight[1] = InFlightRequest(type: "signup", since: at) },
      effects: [.signup(server: "embedded", email: Fixture.email, password: Secret("a"))])
    t.send(
      .signup(.init(email: Fixture.email, password: Secret("b"))),
      { $0.inFlight[2] = InFlightRequest(type: "signup", since: at) },
      effects: [.signup(server: "embedded", email: Fixture.email, password: Secret("b"))])
  }

  // MARK: password recovery

  @Test func recoverPasswordAsksTheServerWithoutALogin() {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .recoverPassword(.init(email: Fixture.email)),
      { $0.inFlight[1] = InFlightRequest(type: "recoverPassword", since: at) },
      effects: [.recoverPassword(server: "embedded", email: Fixture.email)])
  }

  @Test(arguments: invalidEmails)
  func recoverPasswordRejectsAnInvalidEmail(email: String) {
    var t = ReducerTester()
    t.send(.recoverPassword(.init(email: email)), rejected: "'\(email)' is not an email address")
  }

  @Test func theServersAnswerCompletesTheRecoveryAndClearsItsError() {
    var t = ReducerTester()
    let at = t.now
    t.prepare { $0.lastErrors = ["recoverPassword": Fixture.error(), "login": Fixture.error()] }
    let asked = t.send(
      .recoverPassword(.init(email: Fixture.email)),
      { $0.inFlight[1] = InFlightRequest(type: "recoverPassword", since: at) },
      effects: [.recoverPassword(server: "embedded", email: Fixture.email)])
    t.receive(
      .passwordRecoveryRequested(
        .init(email: Fixture.email, mailed: false, message: "Mail sending disabled")),
      cause: asked
    ) {
      $0.inFlight = [:]
      $0.lastErrors["recoverPassword"] = nil
    }
  }

  @Test func signedUpCompletesTheSignupAndClearsItsError() {
    var t = ReducerTester()
    let at = t.now
    t.prepare { $0.lastErrors = ["signup": Fixture.error(), "login": Fixture.error()] }
    let asked = t.send(
      .signup(.init(email: Fixture.email, password: Secret("pw"))),
      { $0.inFlight[1] = InFlightRequest(type: "signup", since: at) },
      effects: [.signup(server: "embedded", email: Fixture.email, password: Secret("pw"))])
    t.receive(.signedUp(.init(email: Fixture.email, message: "check your mail")), cause: asked) {
      $0.inFlight = [:]
      $0.lastErrors["signup"] = nil
    }
  }

  @Test func signedUpDoesNotCompleteARequestOfAnotherType() {
    var t = ReducerTester()
    t.prepare {
      $0.inFlight[4] = InFlightRequest(type: "login", since: Fixture.t0, key: "login")
      $0.lastErrors = ["login": Fixture.error()]
    }
    t.receive(.signedUp(.init(email: Fixture.email, message: "ok")), cause: 4)
  }

  // MARK: login

  @Test(arguments: [nil, 1, 3600, -1] as [Int?])
  func loginAsksTheServer(validSeconds: Int?) {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .login(.init(email: Fixture.email, password: Secret("pw"), validSeconds: validSeconds)),
      { $0.inFlight[1] = InFlightRequest(type: "login", since: at, key: "login") },
      effects: [
        .login(
          server: "embedded", email: Fixture.email, password: Secret("pw"),
          validSeconds: validSeconds)
      ])
  }

  @Test(arguments: invalidEmails)
  func loginRejectsAnInvalidEmail(email: String) {
    var t = ReducerTester()
    t.send(
      .login(.init(email: email, password: Secret("pw"))),
      rejected: "'\(email)' is not an email address")
  }

  @Test func loginRejectsAnEmptyPassword() {
    var t = ReducerTester()
    t.send(
      .login(.init(email: Fixture.email, password: Secret(""))),
      rejected: "the password is empty")
  }

  @Test(arguments: [0, -2, -3600, Int.min, 315_360_001, Int.max])
  func loginRejectsATokenLifetimeThatIsNeitherPositiveNorForever(validSeconds: Int) {
    var t = ReducerTester()
    t.send(
      .login(.init(email: Fixture.email, password: Secret("pw"), validSeconds: validSeconds)),
      rejected:
        "validSeconds must be 1 to 315360000 (ten years), or -1 for a token that never expires")
  }

  @Test func aNewLoginSupersedesAnOlderOne() {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .login(.init(email: Fixture.email, password: Secret("one"))),
      { $0.inFlight[1] = InFlightRequest(type: "login", since: at, key: "login") },
      effects: [
        .login(server: "embedded", email: Fixture.email, password: Secret("one"), validSeconds: nil)
      ])
    t.send(
      .login(.init(email: Fixture.otherEmail, password: Secret("two"))),
      { $0.inFlight[2] = InFlightRequest(type: "login", since: at, key: "login") },
      effects: [
        .supersede(seq: 1),
        .login(
          server: "embedded", email: Fixture.otherEmail, password: Secret("two"), validSeconds: nil),
      ])
  }

  @Test func loggedInStartsTheSessionAndClearsTheLoginError() {
    var t = ReducerTester()
    let asked = t.now
    t.prepare { $0.lastErrors = ["login": Fixture.error(.unauthorized, status: 401)] }
    let login = t.send(
      .login(.init(email: Fixture.email, password: Secret("pw"))),
      { $0.inFlight[1] = InFlightRequest(type: "login", since: asked, key: "login") },
      effects: [
        .login(server: "embedded", email: Fixture.email, password: Secret("pw"), validSeconds: nil)
      ])
    t.advance(by: 420)
    let answered = t.now
    let expiry = answered.adding(milliseconds: 604_800_000)
    t.receive(.loggedIn(.init(email: Fixture.email, expiresAt: expiry)), cause: login) {
      $0.inFlight = [:]
      $0.lastErrors = [:]
      $0.session = Session(email: Fixture.email, expiresAt: expiry, since: answered)
    }
  }

  @Test func loggingInAsAnotherUserForgetsTheFormerUsersRatingsAndSettings() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare {
      $0.userRatings = [Fixture.synonyms.id: UserRating(stars: 5)]
      $0.settings = ["theme": .string("dark")]
    }
    t.receive(.loggedIn(.init(email: Fixture.otherEmail, expiresAt: nil)), cause: nil) {
      $0.session = Session(email: Fixture.otherEmail, expiresAt: nil, since: at)
      $0.userRatings = [:]
      $0.settings = [:]
    }
  }

  @Test func loggingInAgainAsTheSameUserKeepsTheirRatingsAndSettings() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare {
      $0.userRatings = [Fixture.synonyms.id: UserRating(stars: 5)]
      $0.settings = ["theme": .string("dark")]
    }
    t.receive(
      .loggedIn(.init(email: Fixture.email, expiresAt: at.adding(milliseconds: 1000))), cause: nil
    ) {
      $0.session = Session(
        email: Fixture.email, expiresAt: at.adding(milliseconds: 1000), since: at)
    }
  }

  @Test func loggedInDoesNotCompleteARequestOfAnotherType() {
    var t = ReducerTester()
    let at = t.now
    t.prepare {
      $0.inFlight[3] = InFlightRequest(type: "signup", since: Fixture.t0)
      $0.lastErrors = ["signup": Fixture.error(), "login": Fixture.error()]
    }
    t.receive(.loggedIn(.init(email: Fixture.email, expiresAt: nil)), cause: 3) {
      $0.session = Session(email: Fixture.email, expiresAt: nil, since: at)
    }
  }

  @Test func loginFailedEndsTheLoginAndRecordsTheError() {
    var t = ReducerTester()
    let at = t.now
    let failure = Fixture.error(.unauthorized, status: 401)
    let login = t.send(
      .login(.init(email: Fixture.email, password: Secret("wrong"))),
      { $0.inFlight[1] = InFlightRequest(type: "login", since: at, key: "login") },
      effects: [
        .login(
          server: "embedded", email: Fixture.email, password: Secret("wrong"), validSeconds: nil)
      ])
    t.receive(.loginFailed(.init(email: Fixture.email, error: failure)), cause: login) {
      $0.inFlight = [:]
      $0.lastErrors["login"] = failure
    }
  }

  @Test func loginFailedKeepsAnExistingSessionAndOtherRequests() {
    var t = ReducerTester.loggedIn()
    t.prepare {
      $0.inFlight[5] = InFlightRequest(type: "loadGroups", since: Fixture.t0, key: "loadGroups")
    }
    t.receive(.loginFailed(.init(email: Fixture.otherEmail, error: Fixture.error())), cause: 5) {
      $0.lastErrors["login"] = Fixture.error()
    }
  }

  // MARK: logout

  @Test func logoutWhenNobodyIsLoggedInIsRejected() {
    var t = ReducerTester()
    t.send(.logout, rejected: "nobody is logged in")
  }

  @Test func logoutAsksTheServer() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.send(
      .logout, { $0.inFlight[1] = InFlightRequest(type: "logout", since: at) },
      effects: [.logout(server: "embedded", reason: nil)])
    // Logouts have no key: a second one does not cancel the first.
    t.send(
      .logout, { $0.inFlight[2] = InFlightRequest(type: "logout", since: at) },
      effects: [.logout(server: "embedded", reason: nil)])
  }

  @Test func loggedOutEndsTheSessionAndForgetsTheUsersRatingsAndSettings() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare {
      $0.userRatings = [Fixture.synonyms.id: UserRating(stars: 3)]
      $0.settings = ["theme": .string("dark")]
      $0.lastErrors = ["logout": Fixture.error()]
    }
    let logout = t.send(
      .logout, { $0.inFlight[1] = InFlightRequest(type: "logout", since: at) },
      effects: [.logout(server: "embedded", reason: nil)])
    t.receive(.loggedOut(.init()), cause: logout) {
      $0.inFlight = [:]
      $0.lastErrors = [:]
      $0.session = nil
      $0.userRatings = [:]
      $0.settings = [:]
    }
  }

  @Test func loggedOutWithAReasonEndsTheSessionWithoutARequest() {
    var t = ReducerTester.loggedIn()
    t.prepare {
      $0.userRatings = [Fixture.synonyms.id: UserRating(stars: nil)]
      $0.settings = ["speechRate": .number(0.8)]
      $0.inFlight[7] = InFlightRequest(type: "changeSettings", since: Fixture.t0)
    }
    t.receive(.loggedOut(.init(reason: "session expired")), cause: 7) {
      $0.session = nil
      $0.userRatings = [:]
      $0.settings = [:]
    }
  }
}
