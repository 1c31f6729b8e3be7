import SusiCore
import SusiCoreTesting
import SusiJSON
import Testing

@Suite struct StateCodecTests {
  /// A state using every field, with nested values of every model type.
  static func rich() -> State {
    var state = Fixture.populated()
    state.skills["Games, Trivia and Accessories"] = ["Flip a coin": SampleActions.fullSkill]
    state.history = [
      HistoryEntry(
        query: "q", answers: SampleActions.everyAnswer, queryDate: Fixture.t0,
        answerDate: Fixture.t0),
      Fixture.history("undated", at: nil),
    ]
    state.transcript.append(
      ChatEntry(
        seq: 2, at: Fixture.t0, speaker: .susi, query: "hello", answers: SampleActions.everyAnswer,
        skill: "/x"))
    state.searches["kotlin"] = [
      SearchResult(title: "K", description: "d", link: "https://k.example", icon: "https://i")
    ]
    state.lastErrors["login"] = RequestError(
      kind: .unauthorized, status: 401, message: "wrong password")
    state.inFlight[10] = InFlightRequest(type: "search", since: Fixture.t0, key: "search:swift")
    state.inFlight[9] = InFlightRequest(type: "cacheImage", since: Fixture.t0)
    state.userRatings[SkillID(group: "Games", skill: "Flip a coin")] = UserRating(stars: nil)
    state.session = Fixture.session(expiresAt: Fixture.t0)
    return state
  }

  /// The paths of objects whose keys are not sorted by their UTF-8 bytes.
  private func unsortedObjects(_ value: JSON, at path: String = "") -> [String] {
    switch value {
    case .object(let object):
      let keys = object.keys
      let sorted = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      var found = keys == sorted ? [] : [path.isEmpty ? "(top)" : path]
      for member in object { found += unsortedObjects(member.value, at: "\(path).\(member.key)") }
      return found
    case .array(let elements):
      return elements.enumerated().flatMap { unsortedObjects($1, at: "\(path)[\($0)]") }
    default:
      return []
    }
  }

  @Test func writesTheEmptyStateCompactly() {
    #expect(
      String(decoding: State().canonicalJSON(), as: UTF8.self)
        == #"{"groups":[],"history":[],"historyRemaining":null,"images":{},"inFlight":{},"lastErrors":{},"linkPreviews":{},"searches":{},"server":"embedded","session":null,"settings":{},"skills":{},"transcript":[],"userRatings":{}}"#
    )
  }

  @Test func sortsTheKeysOfEveryObject() throws {
    let json = try JSONParser.parse(Self.rich().canonicalJSON())
    #expect(unsortedObjects(json) == [])
  }

  @Test func equalStatesGiveEqualBytesWhateverTheirHistory() {
    var forward = State()
    var backward = State()
    let groups = (0..<40).map { "Group \($0)" }
    for group in groups {
      forward.skills[group] = [
        "A": Skill(tag: "A", group: group), "B": Skill(tag: "B", group: group),
      ]
      forward.settings[group] = .number(1)
      forward.searches[group] = []
    }
    for group in groups.reversed() {
      backward.searches[group] = []
      backward.settings[group] = .number(1)
      backward.skills[group] = [
        "B": Skill(tag: "B", group: group), "A": Skill(tag: "A", group: group),
      ]
    }
    // Dictionaries that grew and shrank iterate differently from fresh ones.
    for i in 0..<200 { backward.images["tmp\(i)"] = CachedImage(path: "p", bytes: i) }
    backward.images = [:]
    #expect(forward == backward)
    #expect(forward.canonicalJSON() == backward.canonicalJSON())
  }

  @Test func differentStatesGiveDifferentBytes() {
    var other = Self.rich()
    other.userRatings[Fixture.synonyms.id] = UserRating(stars: 5)
    #expect(other.canonicalJSON() != Self.rich().canonicalJSON())
    var third = Self.rich()
    third.skills["Knowledge"]?["Synonyms"]?.examples.append("another")
    #expect(third.canonicalJSON() != Self.rich().canonicalJSON())
  }

  @Test func ratingsOfSkillsWhoseNamesJoinAlikeKeepTheirOwnKeys() throws {
    // Both pairs would read "a/b/c" joined by a slash; a group or skill name is whatever the
    // user typed or the server sent.
    var state = State()
    state.userRatings[SkillID(group: "a/b", skill: "c")] = UserRating(stars: 4)
    state.userRatings[SkillID(group: "a", skill: "b/c")] = UserRating(stars: 2)
    state.userRatings[SkillID(group: #"a\"#, skill: "b/c")] = UserRating(stars: 1)
    state.userRatings[SkillID(group: "Games", skill: "Flip a coin")] = UserRating(stars: 5)
    let json = try JSONParser.parse(state.canonicalJSON())
    #expect(
      json["userRatings"]
        == .object([
          "Games/Flip a coin": .int(5), "a/b/c": .int(2), #"a\/b/c"#: .int(4),
          #"a\\/b/c"#: .int(1),
        ]))
  }

  @Test func theJSONValueMatchesTheBytes() throws {
    let state = Self.rich()
    #expect(state.json == (try JSONParser.parse(state.canonicalJSON())))
    #expect(state.json.compactBytes == state.canonicalJSON())
  }

  @Test func writesSessionsRatingsAndRequestsReadably() throws {
    var state = State()
    state.session = Session(email: Fixture.email, expiresAt: nil, since: Timestamp(milliseconds: 0))
    state.userRatings = [
      SkillID(group: "Knowledge", skill: "Synonyms"): UserRating(stars: 4),
      SkillID(group: "Games", skill: "Dice"): UserRating(stars: nil),
    ]
    state.inFlight = [3: InFlightRequest(type: "logout", since: Timestamp(milliseconds: 0))]
    let json = try JSONParser.parse(state.canonicalJSON())
    #expect(json["session"] == ["email": "ada@example.org", "since": "1970-01-01T00:00:00.000Z"])
    #expect(json["userRatings"] == ["Games/Dice": nil, "Knowledge/Synonyms": 4])
    #expect(json["inFlight"] == ["3": ["since": "1970-01-01T00:00:00.000Z", "type": "logout"]])
  }

  @Test func keepsSecretsOutOfTheStatesJSON() {
    var state = State()
    state.lastErrors["syncSettings"] = RequestError(
      kind: .http, status: 500,
      message: "GET /aaa/listUserSettings.json?access_token=tok123 failed")
    let text = String(decoding: state.canonicalJSON(), as: UTF8.self)
    #expect(!text.contains("tok123"))
    #expect(text.contains("access_token=[redacted]"))
  }

  @Test func replayedStatesHaveEqualBytes() {
    let events = SampleActions.all.enumerated().map { i, action in
      Event(
        seq: i + 1, at: Fixture.t0.adding(milliseconds: Int64(i)), origin: .test, cause: i,
        action: action)
    }
    var first = State()
    var second = State()
    for event in events { _ = reduce(&first, event) }
    for event in events { _ = reduce(&second, event) }
    #expect(first.canonicalJSON() == second.canonicalJSON())
    #expect(first.canonicalJSON() != State().canonicalJSON())
  }
}
