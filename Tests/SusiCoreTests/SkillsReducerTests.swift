import SusiCore
import SusiCoreTesting
import Testing

@Suite struct SkillsReducerTests {
  // MARK: groups

  @Test func loadGroupsUsesTheLanguageAsked() {
    var t = ReducerTester()
    let at = t.now
    t.prepare { $0.settings["prefLanguage"] = .string("fr") }
    t.send(
      .loadGroups(.init(language: "de")),
      { $0.inFlight[1] = InFlightRequest(type: "loadGroups", since: at, key: "loadGroups") },
      effects: [.fetchGroups(server: "embedded", language: "de")])
  }

  @Test func loadGroupsFallsBackToThePreferredLanguage() {
    var t = ReducerTester()
    let at = t.now
    t.prepare { $0.settings["prefLanguage"] = .string("fr") }
    t.send(
      .loadGroups(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadGroups", since: at, key: "loadGroups") },
      effects: [.fetchGroups(server: "embedded", language: "fr")])
  }

  @Test(arguments: [nil, SettingValue.string(""), .number(3)])
  func loadGroupsFallsBackToEnglish(preferred: SettingValue?) {
    var t = ReducerTester()
    let at = t.now
    t.prepare { $0.settings["prefLanguage"] = preferred }
    t.send(
      .loadGroups(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadGroups", since: at, key: "loadGroups") },
      effects: [.fetchGroups(server: "embedded", language: "en")])
  }

  @Test func aNewLoadGroupsSupersedesTheOlderOnes() {
    var t = ReducerTester()
    let at = t.now
    t.prepare { $0.server = "http://susi.example" }
    t.send(
      .loadGroups(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadGroups", since: at, key: "loadGroups") },
      effects: [.fetchGroups(server: "http://susi.example", language: "en")])
    t.send(
      .loadGroups(.init(language: "de")),
      { $0.inFlight[2] = InFlightRequest(type: "loadGroups", since: at, key: "loadGroups") },
      effects: [.supersede(seq: 1), .fetchGroups(server: "http://susi.example", language: "de")])
    t.send(
      .loadGroups(.init()),
      { $0.inFlight[3] = InFlightRequest(type: "loadGroups", since: at, key: "loadGroups") },
      effects: [
        .supersede(seq: 1), .supersede(seq: 2),
        .fetchGroups(server: "http://susi.example", language: "en"),
      ])
  }

  @Test func groupsLoadedReplacesTheGroupsWithoutRepeats() {
    var t = ReducerTester()
    let at = t.now
    t.prepare {
      $0.groups = ["Old"]
      $0.lastErrors = ["loadGroups": Fixture.error(), "loadSkills": Fixture.error()]
    }
    let asked = t.send(
      .loadGroups(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadGroups", since: at, key: "loadGroups") },
      effects: [.fetchGroups(server: "embedded", language: "en")])
    t.receive(
      .groupsLoaded(.init(groups: ["Knowledge", "Games", "Knowledge", "Music"])), cause: asked
    ) {
      $0.groups = ["Knowledge", "Games", "Music"]
      $0.inFlight = [:]
      $0.lastErrors["loadGroups"] = nil
    }
  }

  @Test func groupsLoadedDoesNotCompleteARequestOfAnotherType() {
    var t = ReducerTester()
    t.prepare {
      $0.inFlight[1] = InFlightRequest(type: "loadSkills", since: Fixture.t0, key: "loadSkills:*")
      $0.lastErrors = ["loadGroups": Fixture.error()]
    }
    t.receive(.groupsLoaded(.init(groups: ["Knowledge"])), cause: 1) { $0.groups = ["Knowledge"] }
  }

  // MARK: skill lists

  @Test func loadSkillsWithoutAGroupAsksForEverySkillAtOnce() {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .loadSkills(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:*") },
      effects: [.fetchSkills(server: "embedded", group: nil, language: "en")])
  }

  @Test func loadSkillsOfAKnownGroup() {
    var t = ReducerTester()
    let at = t.now
    t.prepare {
      $0.groups = ["Knowledge", "Games"]
      $0.settings["prefLanguage"] = .string("de")
    }
    t.send(
      .loadSkills(.init(group: "Games")),
      { $0.inFlight[1] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:Games") },
      effects: [.fetchSkills(server: "embedded", group: "Games", language: "de")])
    t.send(
      .loadSkills(.init(group: "Knowledge", language: "fr")),
      {
        $0.inFlight[2] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:Knowledge")
      },
      effects: [.fetchSkills(server: "embedded", group: "Knowledge", language: "fr")])
  }

  @Test func loadSkillsOfAnyGroupWhileTheGroupsAreUnknown() {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .loadSkills(.init(group: "Anything")),
      {
        $0.inFlight[1] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:Anything")
      },
      effects: [.fetchSkills(server: "embedded", group: "Anything", language: "en")])
  }

  @Test func loadSkillsOfAGroupWeHoldSkillsFor() {
    var t = ReducerTester()
    let at = t.now
    t.prepare {
      $0.groups = ["Knowledge"]
      $0.skills = ["Music": ["Radio": Fixture.radio]]
    }
    t.send(
      .loadSkills(.init(group: "Music")),
      { $0.inFlight[1] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:Music") },
      effects: [.fetchSkills(server: "embedded", group: "Music", language: "en")])
  }

  @Test(arguments: ["Nope", "knowledge", "Knowledge "])
  func loadSkillsRejectsAGroupTheServerDoesNotHave(group: String) {
    var t = ReducerTester()
    t.prepare { $0.groups = ["Knowledge", "Games"] }
    t.send(.loadSkills(.init(group: group)), rejected: "unknown group '\(group)'")
  }

  @Test(arguments: ["", " ", "\t\n"])
  func loadSkillsRejectsAnEmptyGroup(group: String) {
    var t = ReducerTester()
    t.send(.loadSkills(.init(group: group)), rejected: "the group name is empty")
  }

  @Test func aNewLoadSkillsSupersedesOnlyTheSameGroup() {
    var t = ReducerTester()
    let at = t.now
    t.send(
      .loadSkills(.init(group: "Knowledge")),
      {
        $0.inFlight[1] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:Knowledge")
      },
      effects: [.fetchSkills(server: "embedded", group: "Knowledge", language: "en")])
    t.send(
      .loadSkills(.init(group: "Music")),
      { $0.inFlight[2] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:Music") },
      effects: [.fetchSkills(server: "embedded", group: "Music", language: "en")])
    t.send(
      .loadSkills(.init()),
      { $0.inFlight[3] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:*") },
      effects: [.fetchSkills(server: "embedded", group: nil, language: "en")])
    t.send(
      .loadSkills(.init(group: "Knowledge", language: "de")),
      {
        $0.inFlight[4] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:Knowledge")
      },
      effects: [
        .supersede(seq: 1), .fetchSkills(server: "embedded", group: "Knowledge", language: "de"),
      ])
    t.send(
      .loadSkills(.init()),
      { $0.inFlight[5] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:*") },
      effects: [.supersede(seq: 3), .fetchSkills(server: "embedded", group: nil, language: "en")])
  }

  @Test func skillsOfEveryGroupReplaceAllSkillsAndLeaveTheGroupListAlone() {
    var t = ReducerTester()
    let at = t.now
    let coin = Fixture.flipACoin
    let dice = Skill(tag: "Dice", group: "Games")
    t.prepare {
      $0.groups = ["Knowledge"]
      $0.skills = ["Old": ["Gone": Skill(tag: "Gone", group: "Old")]]
      $0.lastErrors = ["loadSkills": Fixture.error()]
    }
    let asked = t.send(
      .loadSkills(.init()),
      { $0.inFlight[1] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:*") },
      effects: [.fetchSkills(server: "embedded", group: nil, language: "en")])
    t.receive(
      .skillsLoaded(.init(group: nil, skills: [Fixture.radio, Fixture.synonyms, coin, dice])),
      cause: asked
    ) {
      $0.skills = [
        "Music": ["Radio": Fixture.radio], "Knowledge": ["Synonyms": Fixture.synonyms],
        "Games": ["Flip a coin": coin, "Dice": dice],
      ]
      $0.inFlight = [:]
      $0.lastErrors = [:]
    }
  }

  @Test func skillsOfEveryGroupDoNotMakeUpAGroupList() {
    // A skill list may cover only some groups (those with skills in the language asked for):
    // only groupsLoaded says which groups exist.
    var t = ReducerTester()
    t.receive(
      .skillsLoaded(.init(group: nil, skills: [Fixture.radio, Fixture.synonyms])), cause: nil
    ) {
      $0.skills = ["Music": ["Radio": Fixture.radio], "Knowledge": ["Synonyms": Fixture.synonyms]]
    }
    // Groups that have skills count as known, so loading one of them is not refused.
    let at = t.now
    t.send(
      .loadSkills(.init(group: "Music")),
      { $0.inFlight[2] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:Music") },
      effects: [.fetchSkills(server: "embedded", group: "Music", language: "en")])
  }

  @Test func skillsOfOneGroupReplaceOnlyThatGroup() {
    var t = ReducerTester()
    let at = t.now
    let define = Skill(tag: "Define", group: "Knowledge")
    t.prepare {
      $0.groups = ["Knowledge", "Music"]
      $0.skills = ["Knowledge": ["Synonyms": Fixture.synonyms], "Music": ["Radio": Fixture.radio]]
    }
    let asked = t.send(
      .loadSkills(.init(group: "Knowledge")),
      {
        $0.inFlight[1] = InFlightRequest(type: "loadSkills", since: at, key: "loadSkills:Knowledge")
      },
      effects: [.fetchSkills(server: "embedded", group: "Knowledge", language: "en")])
    t.receive(.skillsLoaded(.init(group: "Knowledge", skills: [define])), cause: asked) {
      $0.skills["Knowledge"] = ["Define": define]
      $0.inFlight = [:]
    }
  }

  @Test func aRepeatedSkillTagKeepsTheLastDescription() {
    var t = ReducerTester()
    let first = Skill(tag: "Radio", group: "Music", description: "first")
    let last = Skill(tag: "Radio", group: "Music", description: "last")
    t.receive(.skillsLoaded(.init(group: "Music", skills: [first, last])), cause: nil) {
      $0.skills["Music"] = ["Radio": last]
    }
  }

  @Test func skillsOfAGroupMissingFromTheKnownGroupsLeaveTheGroupListAlone() {
    var t = ReducerTester()
    t.prepare { $0.groups = ["Knowledge"] }
    t.receive(.skillsLoaded(.init(group: "Music", skills: [Fixture.radio])), cause: nil) {
      $0.skills["Music"] = ["Radio": Fixture.radio]
    }
  }

  @Test func emptySkillsOfOneGroupEmptyThatGroup() {
    var t = ReducerTester()
    t.prepare { $0.skills = ["Music": ["Radio": Fixture.radio]] }
    t.receive(.skillsLoaded(.init(group: "Music", skills: [])), cause: nil) {
      $0.skills["Music"] = [:]
    }
  }

  @Test func skillsLoadedDoesNotCompleteARequestOfAnotherType() {
    var t = ReducerTester()
    t.prepare {
      $0.inFlight[1] = InFlightRequest(
        type: "loadSkill", since: Fixture.t0, key: "loadSkill:Music/Radio")
    }
    t.receive(.skillsLoaded(.init(group: "Music", skills: [Fixture.radio])), cause: 1) {
      $0.skills["Music"] = ["Radio": Fixture.radio]
    }
  }

  // MARK: one skill

  @Test func loadSkillPrefersTheLanguageAsked() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.send(
      .loadSkill(.init(group: "Games", skill: "Flip a coin", language: "es")),
      {
        $0.inFlight[1] = InFlightRequest(
          type: "loadSkill", since: at, key: "loadSkill:Games/Flip a coin")
      },
      effects: [
        .fetchSkill(server: "embedded", group: "Games", skill: "Flip a coin", language: "es")
      ])
  }

  @Test func loadSkillUsesTheKnownSkillsLanguage() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.prepare { $0.settings["prefLanguage"] = .string("fr") }
    t.send(
      .loadSkill(.init(group: "Games", skill: "Flip a coin")),
      {
        $0.inFlight[1] = InFlightRequest(
          type: "loadSkill", since: at, key: "loadSkill:Games/Flip a coin")
      },
      effects: [
        .fetchSkill(server: "embedded", group: "Games", skill: "Flip a coin", language: "de")
      ])
  }

  @Test func loadSkillOfAnUnknownSkillUsesThePreferredLanguageThenEnglish() {
    var t = ReducerTester.loggedIn()
    let at = t.now
    t.send(
      .loadSkill(.init(group: "Games", skill: "Dice")),
      {
        $0.inFlight[1] = InFlightRequest(type: "loadSkill", since: at, key: "loadSkill:Games/Dice")
      },
      effects: [.fetchSkill(server: "embedded", group: "Games", skill: "Dice", language: "en")])
    t.prepare { $0.settings["prefLanguage"] = .string("fr") }
    t.send(
      .loadSkill(.init(group: "Games", skill: "Dice")),
      {
        $0.inFlight[2] = InFlightRequest(type: "loadSkill", since: at, key: "loadSkill:Games/Dice")
      },
      effects: [
        .supersede(seq: 1),
        .fetchSkill(server: "embedded", group: "Games", skill: "Dice", language: "fr"),
      ])
  }

  @Test func loadSkillRejectsAnEmptyOrUnknownGroupAndAnEmptySkill() {
    var t = ReducerTester.loggedIn()
    t.send(
      .loadSkill(.init(group: " ", skill: "Radio")),
      rejected: "the group name is empty")
    t.send(
      .loadSkill(.init(group: "Music", skill: "Radio")),
      rejected: "unknown group 'Music'")
    t.send(
      .loadSkill(.init(group: "Games", skill: "")),
      rejected: "the skill name is empty")
    t.send(
      .loadSkill(.init(group: "Games", skill: "  ")),
      rejected: "the skill name is empty")
  }

  @Test func skillLoadedAddsANewSkillUnderItsOwnGroup() {
    var t = ReducerTester()
    let at = t.now
    let asked = t.send(
      .loadSkill(.init(group: "Music", skill: "Radio")),
      {
        $0.inFlight[1] = InFlightRequest(type: "loadSkill", since: at, key: "loadSkill:Music/Radio")
      },
      effects: [.fetchSkill(server: "embedded", group: "Music", skill: "Radio", language: "en")])
    t.receive(.skillLoaded(.init(skill: Fixture.radio)), cause: asked) {
      $0.skills["Music"] = ["Radio": Fixture.radio]
      $0.inFlight = [:]
    }
  }

  @Test func skillLoadedReplacesAKnownSkill() {
    var t = ReducerTester.loggedIn()
    var updated = Fixture.synonyms
    updated.description = "A newer description"
    updated.usageCount = 42
    t.prepare { $0.lastErrors["loadSkill"] = Fixture.error() }
    t.receive(.skillLoaded(.init(skill: updated)), cause: nil) {
      $0.skills["Knowledge"]?["Synonyms"] = updated
    }
  }
}
