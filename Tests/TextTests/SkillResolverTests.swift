import SusiCore
import SusiText
import Testing

@Suite struct SkillResolverTests {
  static let skills: [String: [String: Skill]] = [
    "Games, Trivia and Accessories": [
      "Flip a coin": Skill(
        tag: "Flip a coin", group: "Games, Trivia and Accessories", name: "Flip a coin"),
      "dice": Skill(tag: "dice", group: "Games, Trivia and Accessories", name: "Roll a die"),
    ],
    "Novelty and Humour": ["joke": Skill(tag: "joke", group: "Novelty and Humour", name: "Joke")],
    "Knowledge": ["joke": Skill(tag: "joke", group: "Knowledge", name: "Science joke")],
  ]

  @Test func findsByTagOrDisplayNameIgnoringCase() {
    #expect(
      SkillResolver.resolve("flip A COIN", in: Self.skills)
        == .found(Self.skills["Games, Trivia and Accessories"]!["Flip a coin"]!))
    #expect(
      SkillResolver.resolve("roll a die", in: Self.skills)
        == .found(Self.skills["Games, Trivia and Accessories"]!["dice"]!))
    #expect(
      SkillResolver.resolve("DICE", in: Self.skills)
        == .found(Self.skills["Games, Trivia and Accessories"]!["dice"]!))
  }

  @Test func listsEveryCandidateWhenTheNameIsAmbiguous() {
    guard case .ambiguous(let candidates) = SkillResolver.resolve("joke", in: Self.skills) else {
      Issue.record("expected ambiguous")
      return
    }
    #expect(candidates.map(\.group) == ["Knowledge", "Novelty and Humour"])
  }

  @Test func groupSlashNamePicksOne() {
    #expect(
      SkillResolver.resolve("novelty and humour/joke", in: Self.skills)
        == .found(Self.skills["Novelty and Humour"]!["joke"]!))
  }

  @Test func unknownNamesComeWithTheClosestOnes() {
    #expect(
      SkillResolver.resolve("flip a coni", in: Self.skills) == .notFound(closest: ["Flip a coin"]))
    #expect(SkillResolver.resolve("coin", in: Self.skills) == .notFound(closest: ["Flip a coin"]))
    #expect(SkillResolver.resolve("weather in paris", in: Self.skills) == .notFound(closest: []))
    #expect(SkillResolver.resolve("  ", in: Self.skills) == .notFound(closest: []))
  }
}
