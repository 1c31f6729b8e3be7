public import SusiCore
import SusiJSON
public import Testing

@Suite struct ActionCodecTests {
  private func payloadBytes(_ action: Action) -> [UInt8] {
    var w = JSONWriter()
    action.writePayload(to: &w)
    return w.bytes
  }

  private func decode(_ type: String, _ payload: JSON?, strict: Bool = false) throws -> Action {
    try Action.decode(type: type, payload: payload, strict: strict)
  }

  /// The description of the error decoding `payload` as `type` gives, or nil when it decodes.
  private func problem(_ type: String, _ payload: JSON?, strict: Bool = false) -> String? {
    do {
      let action = try decode(type, payload, strict: strict)
      Issue.record("decoded as \(action)")
      return nil
    } catch {
      return "\(error)"
    }
  }

  // MARK: coverage

  @Test func theTypeNamesAreTheLogsInTheDocumentedOrder() {
    #expect(
      ActionType.intents.map(\.rawValue) == [
        "setServer", "signup", "recoverPassword", "login", "logout", "loadGroups", "loadSkills",
        "loadSkill", "submitRating", "loadUserRating", "changeSettings", "syncSettings",
        "sendMessage",
        "loadHistory", "search", "loadLinkPreview", "cacheImage", "cancelRequest",
        "createAccessGroup", "grantPrivilege", "revokePrivilege", "issueKey", "revokeKey",
      ])
    #expect(
      ActionType.results.map(\.rawValue) == [
        "serverChanged", "signedUp", "passwordRecoveryRequested", "loggedIn", "loginFailed",
        "loggedOut", "groupsLoaded",
        "skillsLoaded", "skillLoaded", "ratingSubmitted", "userRatingLoaded", "settingsChanged",
        "settingsSynced", "messageReceived", "historyLoaded", "websearchLoaded",
        "linkPreviewLoaded", "imageCached", "requestFailed", "actionRejected",
      ])
    #expect(ActionType.intents + ActionType.results == ActionType.allCases)
  }

  @Test func anActionsKindIsItsTypesKind() {
    for action in SampleActions.all {
      #expect(action.kind == action.type.kind, "\(action.type)")
    }
  }

  @Test func theSamplesCoverEveryActionType() {
    let sampled = Set(SampleActions.all.map(\.type))
    #expect(sampled == Set(ActionType.allCases))
  }

  // MARK: round trips

  @Test(arguments: SampleActions.all)
  func everyActionSurvivesEncodingAndDecoding(action: Action) throws {
    let json = try JSONParser.parse(payloadBytes(action))
    #expect(try decode(action.type.rawValue, json) == SampleActions.redacted(action))
  }

  @Test(arguments: SampleActions.all)
  func reencodingADecodedActionGivesIdenticalBytes(action: Action) throws {
    let bytes = payloadBytes(action)
    let decoded = try decode(action.type.rawValue, try JSONParser.parse(bytes))
    #expect(payloadBytes(decoded) == bytes)
  }

  @Test(arguments: SampleActions.all)
  func payloadJSONIsTheWrittenPayload(action: Action) throws {
    #expect(action.payloadJSON == (try JSONParser.parse(payloadBytes(action))))
  }

  @Test(arguments: SampleActions.all.filter { $0.kind == .intent })
  func everyWrittenIntentPassesStrictDecoding(action: Action) throws {
    let json = try JSONParser.parse(payloadBytes(action))
    #expect(try decode(action.type.rawValue, json, strict: true) == SampleActions.redacted(action))
  }

  @Test func writesPayloadsInTheDocumentedShape() {
    let rating = Action.submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 4))
    #expect(
      String(decoding: payloadBytes(rating), as: UTF8.self)
        == #"{"group":"Knowledge","skill":"Synonyms","stars":4}"#)
    let notRated = Action.userRatingLoaded(.init(group: "G", skill: "S", stars: nil))
    #expect(
      String(decoding: payloadBytes(notRated), as: UTF8.self)
        == #"{"group":"G","skill":"S","stars":null}"#)
    #expect(String(decoding: payloadBytes(.logout), as: UTF8.self) == "{}")
    let settings = Action.changeSettings(
      .init(settings: ["theme": .string("dark"), "micInput": .bool(true), "speechRate": .number(2)])
    )
    #expect(
      String(decoding: payloadBytes(settings), as: UTF8.self)
        == #"{"settings":{"micInput":true,"speechRate":2,"theme":"dark"}}"#)
  }

  @Test func absentOptionalFieldsDecodeAsNil() throws {
    #expect(try decode("loadSkills", [:]) == .loadSkills(.init()))
    #expect(try decode("loadSkills", ["group": nil, "language": nil]) == .loadSkills(.init()))
    #expect(try decode("sendMessage", ["query": "hi"]) == .sendMessage(.init(query: "hi")))
    #expect(
      try decode("historyLoaded", ["entries": []])
        == .historyLoaded(.init(entries: [], remaining: 0)))
    #expect(
      try decode("skillLoaded", ["skill": ["tag": "T", "group": "G"]])
        == .skillLoaded(.init(skill: Skill(tag: "T", group: "G", language: "en", model: "general")))
    )
  }

  @Test func aMissingOrNullPayloadIsAnEmptyObject() throws {
    #expect(try decode("logout", nil) == .logout)
    #expect(try decode("syncSettings", .null) == .syncSettings)
    #expect(try decode("loadHistory", nil) == .loadHistory(.init()))
    #expect(problem("search", nil) == "invalid payload: payload.query: missing")
  }

  // MARK: errors

  @Test func refusesAnUnknownType() {
    #expect(problem("launchRocket", [:]) == "unknown action type 'launchRocket'")
    #expect(problem("LoadGroups", [:]) == "unknown action type 'LoadGroups'")
    #expect(problem("", nil) == "unknown action type ''")
    #expect(throws: ActionDecodingError.unknownType("launchRocket")) {
      try decode("launchRocket", nil)
    }
  }

  @Test func refusesAPayloadThatIsNotAnObject() {
    #expect(
      problem("search", ["swift"]) == "invalid payload: payload: expected an object, found an array"
    )
    #expect(
      problem("logout", "x") == "invalid payload: payload: expected an object, found a string")
  }

  static let missingFields: [(String, JSON, String)] = [
    ("setServer", [:], "payload.url: missing"),
    ("signup", ["email": "a@b.c"], "payload.password: missing"),
    ("login", ["password": "pw"], "payload.email: missing"),
    ("loadSkill", ["group": "G"], "payload.skill: missing"),
    ("submitRating", ["group": "G", "skill": "S"], "payload.stars: missing"),
    ("submitRating", ["group": "G", "skill": "S", "stars": nil], "payload.stars: missing"),
    ("loadUserRating", ["skill": "S"], "payload.group: missing"),
    ("changeSettings", [:], "payload.settings: missing"),
    ("sendMessage", [:], "payload.query: missing"),
    ("loadLinkPreview", [:], "payload.url: missing"),
    ("cacheImage", [:], "payload.url: missing"),
    ("cancelRequest", [:], "payload.seq: missing"),
    ("serverChanged", [:], "payload.url: missing"),
    ("signedUp", ["email": "a@b.c"], "payload.message: missing"),
    ("loggedIn", [:], "payload.email: missing"),
    ("loginFailed", ["email": "a@b.c"], "payload.error: missing"),
    ("groupsLoaded", [:], "payload.groups: missing"),
    ("skillsLoaded", [:], "payload.skills: missing"),
    ("skillsLoaded", ["skills": [["group": "G"]]], "payload.skills[0].tag: missing"),
    ("skillLoaded", ["skill": ["tag": "T"]], "payload.skill.group: missing"),
    ("ratingSubmitted", ["group": "G", "skill": "S", "stars": 4], "payload.ratings: missing"),
    (
      "ratingSubmitted",
      [
        "group": "G", "skill": "S", "stars": 4,
        "ratings": [
          "oneStar": 0, "twoStar": 0, "threeStar": 0, "fourStar": 0, "fiveStar": 1, "average": 5,
        ],
      ],
      "payload.ratings.total: missing"
    ),
    ("userRatingLoaded", ["group": "G"], "payload.skill: missing"),
    ("settingsSynced", [:], "payload.settings: missing"),
    ("messageReceived", ["query": "q"], "payload.answers: missing"),
    (
      "messageReceived", ["query": "q", "answers": [["expression": "hi"]]],
      "payload.answers[0].type: missing"
    ),
    (
      "messageReceived", ["query": "q", "answers": [["type": "answer"]]],
      "payload.answers[0].expression: missing"
    ),
    (
      "messageReceived", ["query": "q", "answers": [], "planned": [["answers": []]]],
      "payload.planned[0].delay: missing"
    ),
    ("historyLoaded", ["entries": [["answers": []]]], "payload.entries[0].query: missing"),
    (
      "websearchLoaded", ["query": "q", "results": [["title": "t"]]],
      "payload.results[0].link: missing"
    ),
    ("linkPreviewLoaded", [:], "payload.url: missing"),
    ("imageCached", ["url": "u", "path": "p"], "payload.bytes: missing"),
    ("requestFailed", ["cause": 1, "error": ["message": "m"]], "payload.error.kind: missing"),
    ("actionRejected", [:], "payload.reason: missing"),
  ]

  @Test(arguments: missingFields)
  func namesAMissingField(type: String, payload: JSON, field: String) {
    #expect(problem(type, payload) == "invalid payload: \(field)")
  }

  static let wrongTypes: [(String, JSON, String)] = [
    (
      "submitRating", ["group": "G", "skill": "S", "stars": "4"],
      "payload.stars: expected an integer, found a string"
    ),
    (
      "submitRating", ["group": "G", "skill": "S", "stars": 4.5],
      "payload.stars: expected an integer, found a number"
    ),
    ("setServer", ["url": 5], "payload.url: expected a string, found a number"),
    (
      "login", ["email": "a@b.c", "password": "pw", "validSeconds": "60"],
      "payload.validSeconds: expected an integer, found a string"
    ),
    ("loadSkills", ["group": ["G"]], "payload.group: expected a string, found an array"),
    ("changeSettings", ["settings": []], "payload.settings: expected an object, found an array"),
    (
      "changeSettings", ["settings": ["theme": nil]],
      "payload.settings.theme: expected a boolean, number or string, found null"
    ),
    (
      "changeSettings", ["settings": ["theme": [:]]],
      "payload.settings.theme: expected a boolean, number or string, found an object"
    ),
    ("cancelRequest", ["seq": true], "payload.seq: expected an integer, found a boolean"),
    ("groupsLoaded", ["groups": ["a", 1]], "payload.groups[1]: expected a string, found a number"),
    ("skillsLoaded", ["skills": [:]], "payload.skills: expected an array, found an object"),
    ("skillsLoaded", ["skills": [1]], "payload.skills[0]: expected an object, found a number"),
    (
      "skillLoaded", ["skill": ["tag": "T", "group": "G", "examples": "x"]],
      "payload.skill.examples: expected an array, found a string"
    ),
    (
      "skillLoaded", ["skill": ["tag": "T", "group": "G", "rating": 5]],
      "payload.skill.rating: expected an object, found a number"
    ),
    (
      "loggedIn", ["email": "a@b.c", "expiresAt": "soon"],
      "payload.expiresAt: expected an RFC 3339 date-time"
    ),
    (
      "loggedIn", ["email": "a@b.c", "expiresAt": 1_795_946_400],
      "payload.expiresAt: expected a string, found a number"
    ),
    (
      "messageReceived",
      ["query": "q", "answers": [["type": "map", "latitude": "52", "longitude": 13, "zoom": 1]]],
      "payload.answers[0].latitude: expected a number, found a string"
    ),
    (
      "messageReceived",
      ["query": "q", "answers": [["type": "table", "columns": [], "rows": [1]]]],
      "payload.answers[0].rows[0]: expected an array, found a number"
    ),
    (
      "messageReceived", ["query": "q", "answers": [], "anonymous": "yes"],
      "payload.anonymous: expected a boolean, found a string"
    ),
    (
      "messageReceived", ["query": "q", "answers": [], "planned": [:]],
      "payload.planned: expected an array, found an object"
    ),
    (
      "historyLoaded", ["entries": [["query": "q", "answers": [], "queryDate": "yesterday"]]],
      "payload.entries[0].queryDate: expected an RFC 3339 date-time"
    ),
    (
      "historyLoaded", ["entries": [], "remaining": "3"],
      "payload.remaining: expected an integer, found a string"
    ),
    (
      "imageCached", ["url": "u", "path": "p", "bytes": 1.5],
      "payload.bytes: expected an integer, found a number"
    ),
    (
      "requestFailed", ["cause": 1, "error": ["kind": "http", "status": "500", "message": "m"]],
      "payload.error.status: expected an integer, found a string"
    ),
  ]

  @Test(arguments: wrongTypes)
  func namesAFieldOfTheWrongType(type: String, payload: JSON, problem expected: String) {
    #expect(problem(type, payload) == "invalid payload: \(expected)")
  }

  // MARK: strict decoding

  @Test(arguments: SampleActions.all.filter { $0.kind == .intent })
  func strictDecodingRefusesAnUnknownField(action: Action) throws {
    var payload = try #require(action.payloadJSON.object)
    payload["extra"] = 1
    #expect(
      problem(action.type.rawValue, .object(payload), strict: true)
        == "invalid payload: payload.extra: unknown field")
    // Without strictness the field is ignored.
    #expect(try decode(action.type.rawValue, .object(payload)) == SampleActions.redacted(action))
  }

  @Test func strictDecodingNamesAMisspelledField() {
    #expect(
      problem("sendMessage", ["query": "hi", "langauge": "en"], strict: true)
        == "invalid payload: payload.langauge: unknown field")
  }

  @Test func strictDecodingDoesNotApplyToResults() throws {
    #expect(
      try decode("groupsLoaded", ["groups": [], "extra": 1], strict: true)
        == .groupsLoaded(.init(groups: [])))
  }
}

extension Action: CustomTestStringConvertible {
  public var testDescription: String { "\(type) \(payloadJSON.compactText)" }
}
