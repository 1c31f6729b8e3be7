import SusiCore
import SusiJSON
import Testing

@Suite struct ModelTests {
  @Test func theServerAcceptsTwentyOneSettings() {
    #expect(SettingKey.allowed.count == 21)
    #expect(Set(SettingKey.allowed.map(\.key)).count == 21)
    #expect(SettingKey.kind(of: "theme") == .string)
    #expect(SettingKey.kind(of: "speechRate") == .number)
    #expect(SettingKey.kind(of: "enterAsSend") == .bool)
    #expect(SettingKey.kind(of: "colour") == nil)
  }

  @Test(arguments: [
    ("enterAsSend", "true", SettingValue.bool(true)), ("enterAsSend", "YES", .bool(true)),
    ("micInput", "on", .bool(true)),
    ("micInput", "1", .bool(true)), ("checked", "false", .bool(false)),
    ("checked", "Off", .bool(false)),
    ("checked", "0", .bool(false)), ("checked", "no", .bool(false)),
    ("speechRate", "0.75", .number(0.75)),
    ("speechPitch", "-2", .number(-2)), ("speechRate", "1e3", .number(1000)),
    ("theme", "dark", .string("dark")),
    ("theme", "", .string("")), ("unknownKey", "42", .string("42")),
  ])
  func parsesTypedSettingText(key: String, text: String, value: SettingValue) {
    #expect(SettingKey.parse(text, for: key) == value)
  }

  @Test(arguments: [
    ("enterAsSend", "maybe"), ("enterAsSend", ""), ("speechRate", "fast"), ("speechRate", ""),
    ("speechRate", "inf"),
    ("speechRate", "nan"), ("speechPitch", "1,5"),
  ])
  func refusesSettingTextThatDoesNotFitTheType(key: String, text: String) {
    #expect(SettingKey.parse(text, for: key) == nil)
  }

  @Test(arguments: [
    (SettingValue.bool(true), "true"), (.bool(false), "false"), (.number(3), "3"),
    (.number(-3), "-3"),
    (.number(0.8), "0.8"), (.number(1e20), "1e+20"), (.string("dark"), "dark"),
  ])
  func writesSettingValuesAsTheServerStoresThem(value: SettingValue, text: String) {
    #expect(value.serverText == text)
    #expect(value.description == text)
  }

  @Test func settingValuesReadFromJSON() throws {
    #expect(try SettingValue(json: true, path: "p") == .bool(true))
    #expect(try SettingValue(json: 2, path: "p") == .number(2))
    #expect(try SettingValue(json: 2.5, path: "p") == .number(2.5))
    #expect(try SettingValue(json: "x", path: "p") == .string("x"))
    #expect(
      throws: JSONShapeError(
        path: "p.q", reason: "expected a boolean, number or string, found an array")
    ) {
      try SettingValue(json: [], path: "p.q")
    }
  }

  @Test func skillsNameThemselves() {
    #expect(Fixture.synonyms.id == SkillID(group: "Knowledge", skill: "Synonyms"))
    #expect(Fixture.synonyms.id.description == "Knowledge/Synonyms")
    #expect(Fixture.synonyms.displayName == "Synonyms")
    #expect(Skill(tag: "t", group: "g").displayName == "t")
    #expect(SampleActions.fullSkill.displayName == "Münzwurf")
    #expect(SkillID(group: "A", skill: "z") < SkillID(group: "B", skill: "a"))
    #expect(SkillID(group: "A", skill: "a") < SkillID(group: "A", skill: "b"))
  }

  @Test func ratingCountsRunFromFiveStarsDown() {
    #expect(Fixture.ratings.countsFiveToOne == [9, 5, 2, 0, 1])
  }

  @Test func sessionsExpireAtTheirExpiryMoment() {
    let session = Fixture.session(expiresAt: Timestamp(milliseconds: 100))
    #expect(!session.isExpired(at: Timestamp(milliseconds: 99)))
    #expect(session.isExpired(at: Timestamp(milliseconds: 100)))
    #expect(session.isExpired(at: Timestamp(milliseconds: 101)))
    #expect(!Fixture.session(expiresAt: nil).isExpired(at: Timestamp(milliseconds: .max)))
  }

  @Test func requestErrorsDescribeThemselves() {
    #expect(
      RequestError(kind: .http, status: 502, message: "bad gateway").description
        == "bad gateway (http, HTTP 502)")
    #expect(RequestError(kind: .network, message: "no route").description == "no route (network)")
  }

  @Test func answerActionsUseTheServersTypeNames() {
    let names = SampleActions.everyAnswer.map(\.typeName)
    #expect(
      names == [
        "answer", "answer", "table", "rss", "websearch", "websearch", "anchor", "map", "map",
        "piechart", "piechart",
        "video_play", "audio_play", "audio_volume", "image_show", "timer_set", "stop", "pause",
        "resume", "restart",
        "previous", "next", "shuffle", "timer_reset", "future_card", "bare",
      ])
  }
}
