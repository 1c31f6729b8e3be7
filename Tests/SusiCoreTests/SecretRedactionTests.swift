import Foundation
import SusiCore
import SusiCrypto
import SusiJSON
import Testing

@Suite struct SecretRedactionTests {
  static let passwords = ["hunter2", "p@ss word", "Zoë-😀", "[redacted]x", "\"quoted\"", "~"]

  private func contains(_ bytes: [UInt8], _ text: String) -> Bool {
    let needle = Array(text.utf8)
    guard !needle.isEmpty, bytes.count >= needle.count else { return false }
    for start in 0...(bytes.count - needle.count)
    where bytes[start..<(start + needle.count)].elementsEqual(needle) {
      return true
    }
    return false
  }

  private func logged(_ action: Action) -> [UInt8] {
    Event(seq: 1, at: Fixture.t0, origin: .cli, action: action).encoded()
  }

  // MARK: Secret

  @Test(arguments: passwords)
  func aLoginNeverWritesItsPassword(password: String) throws {
    let bytes = logged(
      .login(.init(email: Fixture.email, password: Secret(password), validSeconds: 60)))
    #expect(!contains(bytes, password))
    #expect(try Event.decode(bytes).action.payloadJSON["password"] == "[redacted]")
  }

  @Test(arguments: passwords)
  func aSignupNeverWritesItsPassword(password: String) {
    let bytes = logged(.signup(.init(email: Fixture.email, password: Secret(password))))
    #expect(!contains(bytes, password))
    #expect(contains(bytes, #""password":"[redacted]""#))
  }

  @Test func aPasswordReadBackFromTheLogIsMarkedRedacted() throws {
    let bytes = logged(.login(.init(email: Fixture.email, password: Secret("hunter2"))))
    guard case .login(let login) = try Event.decode(bytes).action else {
      Issue.record("not a login")
      return
    }
    #expect(login.password.isRedacted)
    #expect(!Secret("hunter2").isRedacted)
  }

  @Test func aSecretNeverPrintsItsValue() {
    let secret = Secret("hunter2")
    #expect(secret.description == "[redacted]")
    #expect(secret.debugDescription == "[redacted]")
    #expect("\(secret)" == "[redacted]")
    #expect(String(reflecting: secret) == "[redacted]")
    #expect(secret.reveal() == "hunter2")
    #expect(!secret.isEmpty)
    #expect(Secret("").isEmpty)
  }

  @Test func actionsAndEffectsHoldingASecretNeverPrintIt() {
    let login = Action.login(.init(email: Fixture.email, password: Secret("hunter2")))
    let effect = Effect.login(
      server: "embedded", email: Fixture.email, password: Secret("hunter2"), validSeconds: nil)
    for text in ["\(login)", String(reflecting: login), "\(effect)", String(reflecting: effect)] {
      #expect(!text.contains("hunter2"), "\(text)")
    }
  }

  @Test func effectsShowSecretsRedacted() throws {
    let effects: [Effect] = [
      .login(
        server: "embedded", email: Fixture.email, password: Secret("hunter2"), validSeconds: 60),
      .signup(server: "embedded", email: Fixture.email, password: Secret("hunter2")),
    ]
    for effect in effects {
      let text = effect.compactText
      #expect(!text.contains("hunter2"), "\(text)")
      let shown = try JSONParser.parse(Array(text.utf8))
      #expect(shown[effect == effects[0] ? "login" : "signup"]?["password"] == "[redacted]")
    }
  }

  @Test func everyEffectShowsAsOneObjectNamedAfterIt() throws {
    let effects: [(Effect, String)] = [
      (.logout(server: "embedded", reason: nil), "logout"),
      (.fetchGroups(server: "s", language: "en"), "fetchGroups"),
      (.fetchSkills(server: "s", group: nil, language: "de"), "fetchSkills"),
      (.fetchSkill(server: "s", group: "G", skill: "S", language: "en"), "fetchSkill"),
      (.rateSkill(server: "s", group: "G", skill: "S", language: "en", stars: 5), "rateSkill"),
      (.fetchUserRating(server: "s", group: "G", skill: "S", language: "en"), "fetchUserRating"),
      (
        .resolvingSkill(.fetchSkill(server: "s", group: "G", skill: "S", language: "en")),
        "resolvingSkill"
      ),
      (.storeSettings(server: "s", settings: ["theme": .string("dark")]), "storeSettings"),
      (.fetchSettings(server: "s"), "fetchSettings"),
      (.chat(server: "s", query: "hi", language: nil), "chat"),
      (.fetchHistory(server: "s", before: Fixture.t0), "fetchHistory"),
      (.webSearch(query: "q"), "webSearch"), (.fetchLinkPreview(url: "u"), "fetchLinkPreview"),
      (.cacheImage(url: "u"), "cacheImage"),
      (
        .deliverLater(
          delayMilliseconds: 10,
          message: .init(query: "q", answers: SampleActions.everyAnswer, skill: "s")),
        "deliverLater"
      ),
      (.cancel(seq: 3), "cancel"), (.supersede(seq: 4), "supersede"),
    ]
    for (effect, name) in effects {
      guard case .object(let shown) = try JSONParser.parse(Array(effect.compactText.utf8)) else {
        Issue.record("\(name) is not an object")
        continue
      }
      #expect(shown.keys == [name])
    }
    let rate = Effect.rateSkill(server: "s", group: "G", skill: "S", language: "en", stars: 5)
    #expect(
      rate.compactText
        == #"{"rateSkill":{"server":"s","group":"G","skill":"S","language":"en","stars":5}}"#)
  }

  // MARK: free text

  @Test(arguments: [
    (
      "GET /aaa/login.json?login=ada&password=hunter2&type=access-token failed",
      "GET /aaa/login.json?login=ada&password=[redacted]&type=access-token failed"
    ),
    (
      "https://api.susi.ai/x.json?access_token=abc123",
      "https://api.susi.ai/x.json?access_token=[redacted]"
    ),
    ("Authorization: Bearer abc.def-ghi", "Authorization: Bearer [redacted]"),
    ("authorization: bearer xyz", "authorization: bearer [redacted]"),
    ("Bearer Bearer S3697x", "Bearer Bearer [redacted]"),
    ("Bearer bearer k9", "Bearer bearer [redacted]"),
    (
      "token=t1 secret=s1;api_key=k1,apikey=q1",
      "token=[redacted] secret=[redacted];api_key=[redacted],apikey=[redacted]"
    ),
    ("a=1&password=x&password=y", "a=1&password=[redacted]&password=[redacted]"),
    (
      #"url "http://h/?access_token=zz" failed"#, #"url "http://h/?access_token=[redacted]" failed"#
    ),
    ("'password=p1' <access_token=t2>", "'password=[redacted]' <access_token=[redacted]>"),
    ("line password=p1\nnext", "line password=[redacted]\nnext"),
    ("password=p1\tBearer t1\r\n", "password=[redacted]\tBearer [redacted]\r\n"),
    ("password=", "password="),
    ("no secrets here", "no secrets here"),
    ("x=1&y=2", "x=1&y=2"),
    ("", ""),
    ("password=[redacted]", "password=[redacted]"),
  ])
  func scrubsSecretValuesOutOfText(text: String, expected: String) {
    #expect(Redaction.scrub(text) == expected)
  }

  @Test func scrubbingIsIdempotentAndRemovesEverySecret() {
    let markers = [
      "access_token=", "password=", "token=", "secret=", "api_key=", "apikey=", "Bearer ",
      "bearer ",
    ]
    let separators = ["&", " ", "\"", "'", "\n", "\t", "\r", ",", ";", "<", ">"]
    let words = ["GET", "/x.json", "failed", "a=b", "é", "=", "Bearer", ""]
    var generator = SeededRandom(seed: 31)
    for i in 0..<500 {
      var text = ""
      var secrets: [String] = []
      for _ in 0..<Int.random(in: 1...6, using: &generator) {
        text += separators.randomElement(using: &generator)!
        if Bool.random(using: &generator) {
          let secret = "S\(Int.random(in: 1000...9999, using: &generator))x"
          secrets.append(secret)
          text += markers.randomElement(using: &generator)! + secret
        } else {
          text += words.randomElement(using: &generator)!
        }
      }
      let once = Redaction.scrub(text)
      #expect(Redaction.scrub(once) == once, "case \(i): \(text)")
      for secret in secrets { #expect(!once.contains(secret), "case \(i): \(text)") }
    }
  }

  @Test func theLogScrubsSecretsFromFreeText() {
    let leak = "GET https://h/x.json?access_token=tok123 failed; Authorization: Bearer tok456"
    let actions: [Action] = [
      .requestFailed(
        .init(cause: 1, error: RequestError(kind: .http, status: 500, message: leak))),
      .loginFailed(
        .init(email: Fixture.email, error: RequestError(kind: .unauthorized, message: leak))),
      .actionRejected(.init(reason: leak)),
      .loggedOut(.init(reason: leak)),
    ]
    for action in actions {
      let bytes = logged(action)
      #expect(!contains(bytes, "tok123"), "\(action.type)")
      #expect(!contains(bytes, "tok456"), "\(action.type)")
      #expect(contains(bytes, "access_token=[redacted]"), "\(action.type)")
    }
  }
}
