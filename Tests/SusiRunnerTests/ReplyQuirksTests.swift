import SusiCore
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiRunner
import SusiTesting
import Testing

/// How replies of every odd shape the SUSI server produces are read.
@Suite(.hangLimit)
struct ReplyQuirksTests {
  static let groups = Effect.fetchGroups(server: "embedded", language: "en")
  static let loaded = Action.groupsLoaded(
    .init(groups: ["Knowledge", "Games, Trivia and Accessories"]))

  static func reply(_ response: TransportResponse, _ effect: Effect = groups) async -> Action {
    let harness = Harness(configure: { $0.retryPolicy = .never }, respond: { _ in response })
    return await harness.run(effect)
  }

  static func body(_ text: String, contentType: String = "application/javascript; charset=utf-8")
    async -> Action
  {
    await reply(.json(text, contentType: contentType))
  }

  @Test func applicationJavascriptIsReadAsJSON() async {
    #expect(
      await Self.body(#"{"accepted":true,"groups":["Knowledge","Games, Trivia and Accessories"]}"#)
        == Self.loaded)
  }

  @Test(arguments: ["text/html", "text/plain", "application/json", ""])
  func theContentTypeIsNotCheckedStrictly(contentType: String) async {
    let text = #"{"accepted":true,"groups":["Knowledge","Games, Trivia and Accessories"]}"#
    #expect(await Self.body(text, contentType: contentType) == Self.loaded)
  }

  @Test func prettyPrintedBodiesAreRead() async {
    let text = """
      {
        "accepted": true,
        "groups": [
          "Knowledge",
          "Games, Trivia and Accessories"
        ],
        "message": "Success: Fetched group list",
        "session": {"identity": {
          "type": "host",
          "name": "127.0.0.1_1a2b3c4d",
          "anonymous": true
        }}
      }

      """
    #expect(await Self.body(text) == Self.loaded)
  }

  @Test(arguments: [
    #"cb({"accepted":true,"groups":["Knowledge","Games, Trivia and Accessories"]});"#,
    #"jQuery.callback_12 ( {"accepted":true,"groups":["Knowledge","Games, Trivia and Accessories"]} )"#,
    #"/**/cb({"accepted":true,"groups":["Knowledge","Games, Trivia and Accessories"]})"#,
    "\u{FEFF}" + #"{"accepted":true,"groups":["Knowledge","Games, Trivia and Accessories"]}"#,
  ])
  func jsonpAndByteOrderMarksAreUnwrapped(text: String) async {
    #expect(await Self.body(text) == Self.loaded)
  }

  @Test func acceptedFalseOnHTTP200IsAServerFailure() async {
    let result = await Self.body(#"{"accepted":false,"message":"Please verify recaptcha"}"#)
    #expect(result.failure == RequestError(kind: .server, message: "Please verify recaptcha"))
  }

  @Test func acceptedFalseWithoutAMessageStillSaysWhere() async {
    let result = await Self.body(#"{"accepted":false}"#)
    #expect(
      result.failure
        == RequestError(kind: .server, message: "/cms/getGroups.json did not accept the request"))
  }

  @Test func htmlErrorPagesGiveTheStatusAndTheTitlesMessage() async {
    let result = await Self.reply(.jettyError(422, "Rating not provided."))
    #expect(
      result.failure == RequestError(kind: .http, status: 422, message: "Rating not provided."))
  }

  @Test func anErrorPageWithEntitiesIsDecoded() async {
    let page =
      "<html><head><title>Error 404 Skill &quot;x&quot; does not exist.</title></head></html>"
    let result = await Self.reply(TransportResponse(status: 404, body: Array(page.utf8)))
    #expect(
      result.failure
        == RequestError(kind: .http, status: 404, message: "Skill \"x\" does not exist."))
  }

  @Test func anErrorPageWithoutATitleUsesThePreText() async {
    let page =
      "<html><body><h2>HTTP ERROR 400</h2><pre>    Bad login parameters.</pre></body></html>"
    let result = await Self.reply(TransportResponse(status: 400, body: Array(page.utf8)))
    #expect(
      result.failure == RequestError(kind: .http, status: 400, message: "Bad login parameters."))
  }

  @Test func anEmptyErrorBodyStillGivesTheStatus() async {
    let result = await Self.reply(TransportResponse(status: 422))
    #expect(
      result.failure
        == RequestError(
          kind: .http, status: 422,
          message: "/cms/getGroups.json answered HTTP 422 Unprocessable Content"))
    let busy = await Self.reply(TransportResponse(status: 503))
    #expect(busy.failure?.status == 503)
    #expect(busy.failure?.message.contains("try again later") == true)
  }

  @Test func aRedirectIsNotFollowedForAPICalls() async {
    let result = await Self.reply(
      TransportResponse(
        status: 301,
        headers: ["Location": "https://api.example/cms/getGroups.json?access_token=abc"]))
    #expect(result.failure?.kind == .http)
    #expect(result.failure?.status == 301)
    #expect(result.failure?.message.contains("https://api.example/cms/getGroups.json") == true)
    #expect(result.failure?.message.contains("abc") == false)
  }

  @Test(arguments: [
    (
      "<!DOCTYPE html><html><body>Proxy login</body></html>",
      "sent an HTML page where JSON was expected"
    ),
    ("", "sent an empty reply"),
    ("   \n  ", "sent an empty reply"),
    ("not json at all", "is not JSON"),
    ("{\"accepted\":true,", "is not JSON"),
    ("[1,2,3]", "replied with an array where an object was expected"),
    ("\"text\"", "replied with a string where an object was expected"),
    ("\u{00}\u{01}\u{02}garbage\u{ff}", "is not JSON"),
  ])
  func garbageBodiesAreTypedFailures(body: String, says: String) async {
    let result = await Self.body(body)
    #expect(result.failure?.kind == .badResponse)
    #expect(result.failure?.message.contains(says) == true, "\(result)")
  }

  @Test func aGroupsReplyOfTheWrongShapeIsABadResponse() async {
    let result = await Self.body(#"{"accepted":true,"groups":"Knowledge"}"#)
    #expect(result.failure?.kind == .badResponse)
  }

  @Test func anOversizeBodyIsATypedFailure() async {
    let harness = Harness { request in
      throw TransportError.tooLarge(limit: request.maximumBodyBytes)
    }
    let result = await harness.run(Self.groups)
    #expect(
      result.failure
        == RequestError(
          kind: .tooLarge,
          message:
            "the reply from http://127.0.0.1:4000/cms/getGroups.json is larger than 1048576 bytes"))
    #expect(harness.transport.requests.first?.maximumBodyBytes == 1 << 20)
  }

  @Test func unauthorizedOnAUserEndpointAsksToLogInAgain() async {
    let harness = Harness(
      configure: { $0.retryPolicy = .never },
      respond: { request in
        if request.path == "/aaa/login.json" {
          return .json(#"{"accepted":true,"access_token":"T0K-canary","valid_seconds":3600}"#)
        }
        return .jettyError(
          401,
          "Base user role not sufficient. Your base user role is 'ANONYMOUS', minimum user role required is 'user'"
        )
      })
    _ = await harness.run(
      .login(server: "embedded", email: "u@example.com", password: Secret("pw"), validSeconds: nil))
    let result = await harness.run(.fetchSettings(server: "embedded"), cause: 2)
    #expect(result.failure?.kind == .unauthorized)
    #expect(result.failure?.status == 401)
    #expect(result.failure?.message.hasSuffix("log in again") == true)
  }

  @Test func aRejectedLoginIsAnHTTPFailureNotAnExpiredSession() async {
    let harness = Harness { _ in .jettyError(401, "Invalid credentials") }
    let result = await harness.run(
      .login(server: "embedded", email: "u@example.com", password: Secret("pw"), validSeconds: nil))
    #expect(
      result
        == .loginFailed(
          .init(
            email: "u@example.com",
            error: .init(kind: .http, status: 401, message: "Invalid credentials"))))
  }
}
