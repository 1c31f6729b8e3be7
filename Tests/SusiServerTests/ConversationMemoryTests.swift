import Foundation
import SusiCrypto
import SusiJSON
import Testing

@testable import SusiServer

/// The values a chat remembers are kept up to date as replies come and go: they always equal
/// what reading every kept reply, newest first, would give.
@Suite struct ConversationMemoryTests {
  /// A reply whose answers hold `rows` (each a list of name and value).
  static func cognition(_ number: Int, rows: [[(String, JSON)]]) -> ConversationMemory.Cognition {
    let data = rows.map { JSON.object(JSONObject($0)) }
    let envelope: JSONObject = [
      "query": .string("q\(number)"), "answers": [.object(["data": .array(data)])],
    ]
    return .init(date: Date(timeIntervalSince1970: Double(number)), envelope: envelope)
  }

  /// For each name, the first row holding it, going through the kept replies newest first.
  static func valuesReadFromEveryReply(_ memory: ConversationMemory, _ client: String)
    -> [String: JSON]
  {
    var values: [String: JSON] = [:]
    let kept = memory.recall(client, limit: Int.max, latest: nil).cognitions
    for cognition in kept {
      for row in cognition.rows {
        for member in row.members where values[member.key] == nil {
          values[member.key] = member.value
        }
      }
    }
    return values
  }

  @Test func rememberedValuesEqualEveryKeptReplyReadNewestFirst() {
    var random = SeededRandom(seed: 7)
    var memory = ConversationMemory()
    let names = (0..<40).map { "n\($0)" } + ["city", "_mood", "0"]
    let clients = ["a", "b"]
    for number in 0..<(3 * ConversationMemory.perIdentity) {
      // Rows of a few names each, a name sometimes twice in one reply or one row, and now and
      // then a reply without rows.
      let rows: [[(String, JSON)]] = (0..<Int.random(in: 0...3, using: &random)).map { _ in
        (0..<Int.random(in: 1...3, using: &random)).map { _ in
          (names.randomElement(using: &random)!, .int(Int.random(in: 0...9, using: &random)))
        }
      }
      let client = clients.randomElement(using: &random)!
      memory.remember(Self.cognition(number, rows: rows), for: client)
      for client in clients {
        #expect(memory.rememberedValues(client) == Self.valuesReadFromEveryReply(memory, client))
      }
    }
    // Names only a forgotten reply held are gone: the oldest replies were dropped by now.
    #expect(
      memory.recall("a", limit: Int.max, latest: nil).cognitions.count
        == ConversationMemory.perIdentity)
  }

  @Test func aNameOnlyTheForgottenReplyHeldIsForgotten() {
    var memory = ConversationMemory()
    memory.remember(Self.cognition(0, rows: [[("city", "Berlin")]]), for: "a")
    for number in 1...ConversationMemory.perIdentity {
      memory.remember(Self.cognition(number, rows: [[("name", .int(number))]]), for: "a")
    }
    #expect(memory.rememberedValues("a")["city"] == nil)
    #expect(memory.rememberedValues("a")["name"] == .int(ConversationMemory.perIdentity))
  }

  @Test func aForgottenIdentityRemembersNothing() {
    var memory = ConversationMemory()
    memory.remember(Self.cognition(0, rows: [[("city", "Berlin")]]), for: "first")
    for number in 1...ConversationMemory.identities {
      memory.remember(Self.cognition(number, rows: [[("n", .int(number))]]), for: "c\(number)")
    }
    #expect(memory.rememberedValues("first").isEmpty)
    #expect(memory.rememberedValues("c1") == ["n": .int(1)])
  }
}
