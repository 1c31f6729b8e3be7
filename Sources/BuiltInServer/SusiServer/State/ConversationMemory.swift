import Foundation
import SusiJSON

/// Each identity's past chat replies (cognitions), newest last, bounded in size.
struct ConversationMemory: Sendable {
  /// Cognitions kept per identity; older ones are forgotten.
  static let perIdentity = 100
  /// Identities remembered; the least recently active is forgotten first.
  static let identities = 10_000

  struct Cognition: Sendable {
    let date: Date
    let envelope: JSONObject
    /// The data rows of its answers, taken out once: where remembered values are found.
    let rows: [JSONObject]

    init(date: Date, envelope: JSONObject) {
      self.date = date
      self.envelope = envelope
      var rows: [JSONObject] = []
      for answer in envelope["answers"]?.array ?? [] {
        rows += (answer["data"]?.array ?? []).compactMap(\.object)
      }
      self.rows = rows
    }
  }

  /// An identity's remembered values: for each name, its value in the newest kept cognition
  /// whose rows hold it (the first such row), and that cognition's number. Kept up to date as
  /// cognitions come and go, so a chat reads them without going through every kept reply.
  private struct Remembered {
    var values: [String: JSON] = [:]
    var holders: [String: Int] = [:]
    /// Cognitions remembered so far: the next one's number.
    var count = 0

    mutating func add(_ cognition: Cognition) {
      let number = count
      count += 1
      for row in cognition.rows {
        for member in row.members where holders[member.key] != number {
          values[member.key] = member.value
          holders[member.key] = number
        }
      }
    }

    /// Forgets what only the cognition numbered `number` held: a name a newer cognition also
    /// holds has that one as its holder.
    mutating func drop(_ cognition: Cognition, number: Int) {
      for row in cognition.rows {
        for member in row.members where holders[member.key] == number {
          values[member.key] = nil
          holders[member.key] = nil
        }
      }
    }
  }

  private var cognitions: [String: [Cognition]] = [:]
  private var remembered: [String: Remembered] = [:]
  private var lastUse: [String: Date] = [:]

  mutating func remember(_ cognition: Cognition, for client: String) {
    var list = cognitions[client] ?? []
    var values = remembered[client] ?? Remembered()
    list.append(cognition)
    values.add(cognition)
    if list.count > ConversationMemory.perIdentity {
      let dropped = list.count - ConversationMemory.perIdentity
      let firstNumber = values.count - list.count
      for (offset, old) in list.prefix(dropped).enumerated() {
        values.drop(old, number: firstNumber + offset)
      }
      list.removeFirst(dropped)
    }
    cognitions[client] = list
    remembered[client] = values
    lastUse[client] = cognition.date
    if cognitions.count > ConversationMemory.identities,
      let stalest = lastUse.min(by: { $0.value < $1.value })?.key
    {
      cognitions[stalest] = nil
      remembered[stalest] = nil
      lastUse[stalest] = nil
    }
  }

  /// Every cognition kept, oldest first, with its identity: remembering them in this order
  /// rebuilds this memory.
  var all: [(client: String, cognition: Cognition)] {
    cognitions.flatMap { client, list in list.map { (client, $0) } }
      .sorted { $0.cognition.date < $1.cognition.date }
  }

  /// The values an identity's kept replies hold (`$_name$` and every other name in their data
  /// rows): for each name, the newest reply's.
  func rememberedValues(_ client: String) -> [String: JSON] {
    remembered[client]?.values ?? [:]
  }

  /// Up to `limit` cognitions asked at or before `latest` (all when nil), newest first, and how
  /// many older ones remain.
  func recall(_ client: String, limit: Int, latest: Date?) -> (
    cognitions: [Cognition], remaining: Int
  ) {
    let eligible = (cognitions[client] ?? []).filter { cognition in
      latest.map { cognition.date <= $0 } ?? true
    }
    let newestFirst = Array(eligible.reversed())
    let page = Array(newestFirst.prefix(max(0, limit)))
    return (page, newestFirst.count - page.count)
  }
}
