public import SusiCore
import SusiJSON

/// A deterministic, realistic stream of events (used by the benchmarks and the crash tests): a user who logs in, loads skills, and then chats
/// (plain answers, tables, feeds), rates skills, searches, changes settings and now and then sends
/// something the reducer refuses — intents and their results, with valid causes, so the stream
/// replays like a real log. Event `seq` is the same every time.
public enum RealisticEvents {
  public static let groups = [
    "Knowledge", "Games, Trivia and Accessories", "Music and Audio", "News", "Weather",
  ]
  public static let skillNames = [
    "Synonyms", "Flip a coin", "Capital", "Dictionary", "Quotes", "Trivia", "Timer", "Jokes",
  ]
  private static let words = [
    "weather", "berlin", "tomorrow", "rain", "what", "is", "the", "capital", "of", "france", "tell",
    "me",
    "a", "joke", "about", "cats", "how", "far", "moon", "play", "some", "music", "synonym", "for",
    "happy",
    "translate", "good", "morning", "into", "german", "news", "today",
  ]
  public static let start = Timestamp(milliseconds: 1_795_255_200_000)
  static let preamble = 6
  static let cycle = 14

  /// The event with this seq (1-based).
  public static func event(seq: Int) -> Event {
    var random = UInt64(truncatingIfNeeded: seq) &* 0x9E37_79B9_7F4A_7C15 &+ 0x1234_5678
    func next(_ bound: Int) -> Int {
      random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((random >> 33) % UInt64(bound))
    }
    func sentence(_ count: Int) -> String {
      (0..<count).map { _ in words[next(words.count)] }.joined(separator: " ")
    }
    let at = start.adding(milliseconds: Int64(seq) * 137)
    func intent(_ origin: EventOrigin, _ action: Action) -> Event {
      Event(seq: seq, at: at, origin: origin, action: action)
    }
    func result(_ action: Action) -> Event {
      Event(seq: seq, at: at, origin: .runner, cause: seq - 1, action: action)
    }
    let group = groups[(seq / cycle) % groups.count]
    let skill = skillNames[(seq / cycle) % skillNames.count]

    switch seq {
    case 1:
      return intent(.cli, .login(.init(email: "ada@example.org", password: Secret("not stored"))))
    case 2:
      return result(
        .loggedIn(
          .init(
            email: "ada@example.org", expiresAt: start.adding(milliseconds: 10 * 365 * 86_400_000)))
      )
    case 3: return intent(.cli, .loadGroups(.init()))
    case 4: return result(.groupsLoaded(.init(groups: groups)))
    case 5: return intent(.cli, .loadSkills(.init()))
    case 6:
      var skills: [Skill] = []
      for g in groups {
        for name in skillNames {
          skills.append(
            Skill(
              tag: name, group: g, name: name, description: "A skill about \(name.lowercased()).",
              author: "SUSI team",
              image: "images/\(name.lowercased()).png",
              examples: ["\(name.lowercased()) please", "tell me about \(name)"],
              rating: RatingAggregate(fourStar: 2, fiveStar: 1, average: 4.33, total: 3)))
        }
      }
      return result(.skillsLoaded(.init(group: nil, skills: skills)))
    default: break
    }
    switch (seq - preamble - 1) % cycle {
    case 0: return intent(.cli, .sendMessage(.init(query: sentence(3 + next(8)))))
    case 1:
      return result(
        .messageReceived(
          .init(
            query: sentence(3 + next(5)),
            answers: [.answer(expression: sentence(4 + next(20)), language: "en", mood: nil)],
            skill: "/susi_skill_data/models/general/\(group)/en/\(skill).txt")))
    case 2:
      return Event(
        seq: seq, at: at, origin: .jsonl, id: .string("q\(seq)"),
        action: .sendMessage(.init(query: sentence(4))))
    case 3:
      let rows: [[JSON]] = (0..<4).map { _ in
        [.string(sentence(2)), .int(next(1000)), .double(Double(next(100)) / 4)]
      }
      return Event(
        seq: seq, at: at, origin: .runner, cause: seq - 1, id: .string("q\(seq - 1)"),
        action: .messageReceived(
          .init(
            query: sentence(4),
            answers: [
              .answer(expression: sentence(6), language: "en", mood: nil),
              .table(
                columns: [
                  .init(key: "name", header: "Name"), .init(key: "count", header: "Count"),
                  .init(key: "score", header: "Score"),
                ], rows: rows),
            ])))
    case 4:
      return intent(.cli, .submitRating(.init(group: group, skill: skill, stars: 1 + next(5))))
    case 5:
      let stars = 1 + next(5)
      return result(
        .ratingSubmitted(
          .init(
            group: group, skill: skill, stars: stars,
            ratings: RatingAggregate(threeStar: 1, fourStar: 2, fiveStar: 1, average: 4, total: 4)))
      )
    case 6: return intent(.cli, .search(.init(query: words[next(words.count)])))
    case 7:
      let results = (0..<4).map { i in
        SearchResult(
          title: sentence(3), description: sentence(10),
          link: "https://duckduckgo.com/\(words[(i * 7) % words.count])", icon: nil)
      }
      return result(.websearchLoaded(.init(query: words[next(words.count)], results: results)))
    case 8: return intent(.cli, .loadSkill(.init(group: group, skill: skill)))
    case 9:
      return result(
        .skillLoaded(
          .init(
            skill: Skill(
              tag: skill, group: group, name: skill, description: sentence(12), author: "SUSI team",
              examples: [sentence(3), sentence(4)],
              rating: RatingAggregate(fiveStar: next(9), average: 5, total: 1))))
      )
    case 10:
      return intent(
        .cli,
        .changeSettings(
          .init(settings: [
            "theme": .string(next(2) == 0 ? "dark" : "light"),
            "speechRate": .number(Double(next(20)) / 10),
          ])))
    case 11:
      return result(
        .settingsChanged(.init(settings: ["theme": .string("dark"), "speechRate": .number(1.5)])))
    case 12: return intent(.jsonl, .submitRating(.init(group: group, skill: skill, stars: 9)))
    default: return result(.actionRejected(.init(reason: "stars must be 1 to 5, not 9")))
    }
  }
}

extension RealisticEvents {
  /// The state that folding events 1…`last` gives: what replaying a log of them must rebuild.
  public static func state(through last: Int) -> State {
    var state = State()
    if last >= 1 { for seq in 1...last { _ = reduce(&state, event(seq: seq)) } }
    return state
  }
}
