import Foundation
import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiRunner
import SusiStore
import SusiTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Login, logout and the credentials file.
@Suite(.hangLimit)
struct SessionTests {
  static let token = "T0K-canary-3f9a8b7c6d5e4f3a2b1c"
  static let password = "P@ss-canary-1234"
  static let email = "user@example.com"
  static func login(validSeconds: Int? = nil, server: String = "embedded") -> Effect {
    .login(server: server, email: email, password: Secret(password), validSeconds: validSeconds)
  }

  static func loginReply(_ validSeconds: String) -> TransportResponse {
    .json(
      """
      {
        "accepted": true,
        "valid_seconds": \(validSeconds),
        "uuid": "5f4dcc3b5aa765d61d8327deb882cf99",
        "access_token": "\(token)",
        "message": "You are logged in as user@example.com",
        "session": {"identity": {"type": "host", "name": "203.0.113.7_1a2b3c4d", "anonymous": true}}
      }
      """)
  }

  static func credentialFiles(_ harness: Harness) -> [String] {
    let folder = harness.directory + "/credentials"
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map {
      folder + "/" + $0
    }
  }

  static func mode(_ path: String) -> mode_t {
    var info = stat()
    stat(path, &info)
    return info.st_mode & 0o777
  }

  @Test func loginPostsAFormWithTheHyphenatedTypeAndKeepsSecretsOutOfTheURL() async {
    let harness = Harness { _ in Self.loginReply("604800") }
    let result = await harness.run(Self.login(validSeconds: 3600))
    #expect(
      result
        == .loggedIn(
          .init(email: Self.email, expiresAt: harness.clock.now().adding(milliseconds: 604_800_000))
        ))
    let request = harness.transport.requests[0]
    #expect(request.method == .post)
    #expect(request.url == "http://127.0.0.1:4000/aaa/login.json")
    #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
    #expect(
      String(decoding: request.body, as: UTF8.self)
        == "login=user%40example.com&password=P%40ss-canary-1234&type=access-token&valid_seconds=3600"
    )
  }

  @Test(
    arguments: [
      (#""forever""#, nil), ("-1", nil), ("60", 60_000), ("null", 604_800_000),
      (#""120""#, 120_000),
    ] as [(String, Int64?)])
  func theTokenLifetimeComesFromValidSeconds(validSeconds: String, milliseconds: Int64?) async {
    let harness = Harness { _ in Self.loginReply(validSeconds) }
    let result = await harness.run(Self.login())
    let now = harness.clock.now()
    #expect(
      result
        == .loggedIn(
          .init(email: Self.email, expiresAt: milliseconds.map { now.adding(milliseconds: $0) })))
  }

  @Test func aLoginReplyWithoutATokenIsABadResponse() async {
    let harness = Harness { _ in .json(#"{"accepted":true,"message":"odd"}"#) }
    #expect(await harness.run(Self.login()).failure?.kind == .badResponse)
    #expect(Self.credentialFiles(harness).isEmpty)
  }

  @Test func aCaptchaDemandOnHTTP200IsALoginFailure() async {
    let harness = Harness { _ in .json(#"{"accepted":false,"message":"Please verify recaptcha"}"#) }
    #expect(
      await harness.run(Self.login())
        == .loginFailed(
          .init(email: Self.email, error: .init(kind: .server, message: "Please verify recaptcha"))
        ))
  }

  @Test func theTokenIsStoredInAFileOnlyTheUserCanRead() async throws {
    let harness = Harness { _ in Self.loginReply("604800") }
    _ = await harness.run(Self.login())
    let files = Self.credentialFiles(harness)
    #expect(files.count == 1)
    let file = try #require(files.first)
    #expect(Self.mode(file) == 0o600)
    #expect(Self.mode(harness.directory + "/credentials") == 0o700)
    let text = try String(contentsOfFile: file, encoding: .utf8)
    #expect(text.contains(Self.token))
    #expect(!text.contains(Self.password))
  }

  @Test func tokensAreKeptPerServer() async {
    let harness = Harness { request in
      if request.path == "/aaa/login.json" { return Self.loginReply("604800") }
      return .json(#"{"accepted":true,"settings":{}}"#)
    }
    _ = await harness.run(Self.login(server: "https://one.example"))
    #expect(
      await harness.run(.fetchSettings(server: "https://one.example"), cause: 2)
        == .settingsSynced(.init(settings: [:])))
    #expect(
      await harness.run(.fetchSettings(server: "embedded"), cause: 3).failure?.kind == .notLoggedIn
    )
    #expect(harness.transport.requests.count == 2)
  }

  @Test func aCredentialsFileOthersCanReadIsRefusedWithAFix() async throws {
    let harness = Harness { request in
      if request.path == "/aaa/login.json" { return Self.loginReply("604800") }
      return .json(#"{"accepted":true,"settings":{}}"#)
    }
    _ = await harness.run(Self.login())
    let file = try #require(Self.credentialFiles(harness).first)
    chmod(file, 0o644)
    let result = await harness.run(.fetchSettings(server: "embedded"), cause: 2)
    #expect(result.failure?.kind == .io)
    #expect(
      result.failure?.message
        == "permissions 0644 for '\(file)' are too open: it holds a secret; run chmod 600 \(file)")
    #expect(harness.transport.requests.count == 1)
    chmod(file, 0o600)
    #expect(
      await harness.run(.fetchSettings(server: "embedded"), cause: 3)
        == .settingsSynced(.init(settings: [:])))
  }

  @Test func aDamagedCredentialsFileIsReported() async throws {
    let harness = Harness { request in Self.loginReply("604800") }
    _ = await harness.run(Self.login())
    let file = try #require(Self.credentialFiles(harness).first)
    try "garbage".write(toFile: file, atomically: false, encoding: .utf8)
    chmod(file, 0o600)
    let result = await harness.run(.fetchSettings(server: "embedded"), cause: 2)
    #expect(result.failure?.kind == .io)
    #expect(result.failure?.message.contains("log in again") == true)
  }

  @Test func logoutDropsTheTokenAndTellsTheServerOnce() async {
    let harness = Harness { request in
      if request.parameters["logout"] == "true" { return .jettyError(503, "busy") }
      return Self.loginReply("604800")
    }
    _ = await harness.run(Self.login())
    let result = await harness.run(.logout(server: "embedded", reason: "bye"), cause: 2)
    #expect(result == .loggedOut(.init(reason: "bye")))
    #expect(Self.credentialFiles(harness).isEmpty)
    #expect(harness.transport.requests.count == 2)
    let request = harness.transport.requests[1]
    #expect(request.method == .post)
    #expect(request.parameters == ["logout": "true", "access_token": Self.token])
    #expect(request.query == nil)
    #expect(
      await harness.run(.fetchSettings(server: "embedded"), cause: 3).failure?.kind == .notLoggedIn
    )
  }

  @Test func logoutSucceedsWithoutAServer() async {
    let harness = Harness(
      configure: { $0.embeddedServerURL = nil }, respond: { _ in Self.loginReply("60") })
    #expect(
      await harness.run(.logout(server: "embedded", reason: nil)) == .loggedOut(.init(reason: nil)))
    #expect(harness.transport.requests.isEmpty)
  }

  @Test func aPasswordReadBackFromALogIsNotSent() async {
    let harness = Harness { _ in Self.loginReply("60") }
    let replayed = Effect.login(
      server: "embedded", email: Self.email, password: Secret(Secret.redactedText),
      validSeconds: nil)
    let result = await harness.run(replayed)
    #expect(result.failure?.message.contains("enter it again") == true)
    #expect(harness.transport.requests.isEmpty)
  }

  @Test func signupPostsAFormAndReportsTheServersMessage() async {
    let harness = Harness { _ in
      .json(
        #"{"accepted":true,"message":"You successfully signed-up! An email with a verification link was sent to your address."}"#
      )
    }
    let result = await harness.run(
      .signup(server: "embedded", email: Self.email, password: Secret(Self.password)))
    #expect(
      result
        == .signedUp(
          .init(
            email: Self.email,
            message:
              "You successfully signed-up! An email with a verification link was sent to your address."
          )))
    let request = harness.transport.requests[0]
    #expect(request.method == .post)
    #expect(request.query == nil)
    #expect(request.parameters == ["signup": Self.email, "password": Self.password])
  }

  @Test func passwordRecoveryPostsTheAddressAndSaysWhetherTheMailWentOut() async {
    for (accepted, message) in [
      (true, "Recovery email sent to your email ID. Please check"),
      (false, "Mail sending disabled"),
    ] {
      let harness = Harness { _ in
        .json(#"{"accepted":\#(accepted),"message":"\#(message)"}"#)
      }
      let result = await harness.run(.recoverPassword(server: "embedded", email: Self.email))
      #expect(
        result
          == .passwordRecoveryRequested(
            .init(email: Self.email, mailed: accepted, message: message)))
      let request = harness.transport.requests[0]
      #expect(request.path == "/aaa/recoverpassword.json")
      #expect(request.method == .post)
      #expect(request.parameters == ["forgotemail": Self.email])
    }
  }

  @Test func passwordRecoveryForAnUnknownAddressFails() async {
    let harness = Harness { _ in .jettyError(422, "email does not exist") }
    let result = await harness.run(.recoverPassword(server: "embedded", email: Self.email))
    #expect(
      result
        == .requestFailed(
          .init(cause: 1, error: .init(kind: .http, status: 422, message: "email does not exist"))))
  }

  @Test func signupFailuresCarryTheServersReason() async {
    let harness = Harness { _ in .jettyError(422, "email is already taken") }
    let result = await harness.run(
      .signup(server: "embedded", email: Self.email, password: Secret(Self.password)))
    #expect(
      result
        == .requestFailed(
          .init(
            cause: 1, error: .init(kind: .http, status: 422, message: "email is already taken"))))
  }

  /// Canary: a whole session's results never carry the token or the password, and the
  /// credentials folder is the only place on disk that holds the token.
  @Test func noDeliveredResultCarriesTheTokenOrThePassword() async throws {
    let harness = Harness { request in
      switch request.path {
      case "/aaa/login.json":
        if request.parameters["logout"] == "true" { return .json(#"{"accepted":true}"#) }
        return Self.loginReply("604800")
      case "/susi/chat.json":
        // A server echoing the token back in its answer must not leak it either.
        return .jettyError(500, "bad token \(Self.token) password=\(Self.password)")
      case "/aaa/listUserSettings.json":
        return .json(#"{"accepted":true,"settings":{"theme":"dark"}}"#)
      default:
        return .jettyError(401, "Base user role not sufficient")
      }
    }
    let effects: [Effect] = [
      Self.login(), .signup(server: "embedded", email: Self.email, password: Secret(Self.password)),
      .fetchSettings(server: "embedded"), .chat(server: "embedded", query: "hi", language: nil),
      .rateSkill(server: "embedded", group: "G", skill: "s", language: "en", stars: 4),
      .logout(server: "embedded", reason: nil),
    ]
    for (index, effect) in effects.enumerated() { _ = await harness.run(effect, cause: index + 1) }
    #expect(harness.results.all.count == effects.count)
    for entry in harness.results.all {
      let text = entry.action.encodedPayload + String(describing: entry.action)
      #expect(!text.contains(Self.token), "\(entry.action.type) leaks the token")
      #expect(!text.contains(Self.password), "\(entry.action.type) leaks the password")
    }
    let holders =
      FileManager.default.enumerator(atPath: harness.directory)?.compactMap { $0 as? String } ?? []
    for name in holders {
      let path = harness.directory + "/" + name
      let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
      if text.contains(Self.token) {
        #expect(name.hasPrefix("credentials/"), "\(name) holds the token")
      }
      #expect(!text.contains(Self.password))
    }
  }

  /// A server that echoes the password it was sent in an error text, in any encoding, gets it
  /// replaced before the failure becomes an action (and so reaches the log).
  @Test(arguments: [
    "Canary+Pw&7Q=4z% Grüße", "Canary%2BPw%267Q%3D4z%25%20Gr%C3%BC%C3%9Fe",
    "Canary%2BPw%267Q%3D4z%25+Gr%C3%BC%C3%9Fe", "Canary%2bPw%267Q%3d4z%25+Gr%c3%bc%c3%9fe",
  ])
  func anEchoedPasswordIsScrubbedInEverySpelling(echo: String) async {
    let password = "Canary+Pw&7Q=4z% Grüße"
    let harness = Harness { _ in .jettyError(401, "no account for \(echo) (try again)") }
    for effect in [
      Effect.login(
        server: "embedded", email: Self.email, password: Secret(password), validSeconds: nil),
      .signup(server: "embedded", email: Self.email, password: Secret(password)),
    ] {
      let failure = await harness.run(effect).failure
      #expect(failure?.message == "no account for [redacted] (try again)")
    }
  }
}
