import SusiCore
import SusiTerminal
import Testing

@testable import SusiText

@Suite struct SkillRenderingTests {
  let renderer = TextRenderer(width: 70, glyphs: .utf8)

  static let coin = Skill(
    tag: "Flip a coin", group: "Games, Trivia and Accessories", name: "Flip a coin",
    description: "Ask SUSI to flip a coin for you", author: "Madhav Rathi",
    authorURL: "https://github.com/madhavrathi",
    imageURL: "http://127.0.0.1:4000/cms/getImage.png?image=images/flip_coin.png",
    examples: ["flip a coin", "toss a coin"],
    rating: RatingAggregate(fourStar: 1, fiveStar: 2, average: 4.67, total: 3))

  @Test func skillPageShowsEverythingAPersonNeeds() {
    let text = renderer.skill(Self.coin, userStars: 5)
    let expected = """
      Flip a coin
      Games, Trivia and Accessories · en · by Madhav Rathi <https://github.com/madhavrathi>
      Ask SUSI to flip a coin for you

      Rating: ★★★★★ 4.7 (3 ratings)
        5 ★ ████████████████████████  2
        4 ★ ████████████              1
        3 ★                           0
        2 ★                           0
        1 ★                           0
        average 4.67 from 3 ratings
      Your rating: ★★★★★ 5

      Examples:
        • flip a coin
        • toss a coin
      Try it: susi ask "flip a coin"

      Image: http://127.0.0.1:4000/cms/getImage.png?image=images/flip_coin.png
      """
    #expect(text == expected)
  }

  @Test func unratedSkillWithoutExtrasIsShort() {
    let bare = Skill(tag: "echo", group: "Utilities")
    #expect(renderer.skill(bare) == "echo\nUtilities · en\n\nRating: not rated yet")
  }

  @Test func tryItHintQuotesForTheShell() {
    let skill = Skill(tag: "cost", group: "Shopping", examples: ["what does $5 buy?"])
    #expect(renderer.skill(skill).contains("Try it: susi ask 'what does $5 buy?'"))
  }

  @Test func skillListIsGroupedAndSorted() {
    let skills = [
      Skill(tag: "zeta", group: "Knowledge", description: "Last"),
      Skill(
        tag: "alpha", group: "Knowledge", description: "First",
        rating: RatingAggregate(fiveStar: 1, average: 5, total: 1)),
      Skill(tag: "Flip a coin", group: "Games, Trivia and Accessories", description: "Coins"),
    ]
    let expected = """
      Games, Trivia and Accessories (1)
        Flip a coin  Coins

      Knowledge (2)
        alpha  ★★★★★ 5.0  First
        zeta              Last
      """
    #expect(renderer.skillList(skills) == expected)
  }

  @Test func settingsAreAlignedInTheServersKeyOrder() {
    let text = renderer.settings([
      "theme": .string("dark"), "enterAsSend": .bool(true), "speechRate": .number(0.8),
      "zzz": .string("x"),
    ])
    #expect(text == "enterAsSend  true\nspeechRate   0.8\ntheme        dark\nzzz          x")
  }

  @Test func historyIsOldestFirstWithDates() {
    let entries = [
      HistoryEntry(
        query: "second", answers: [.answer(expression: "two", language: nil, mood: nil)],
        queryDate: Timestamp(rfc3339: "2026-11-21T10:05:00Z")),
      HistoryEntry(
        query: "first", answers: [.answer(expression: "one", language: nil, mood: nil)],
        queryDate: Timestamp(rfc3339: "2026-11-21T10:00:00Z")),
    ]
    #expect(
      renderer.history(entries)
        == "2026-11-21 10:00 UTC  > first\none\n\n2026-11-21 10:05 UTC  > second\ntwo")
  }
}
