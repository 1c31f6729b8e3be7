import Foundation
import SusiJSON

/// Each identity's past chat replies (cognitions), newest last, bounded in size.
struct ConversationMemory: Sendable {
  /// Cognitions kept per identity; older ones are forgotten.
  static let perIdentity = 100
  /// Identities remembered; the least recently active is forgotten first.
  static let identities = 10_000

  struct Cognition: Sendable {
    var date: Date
    var envelope: JSONObject
  }

  private var cognitions: [String: [Cognition]] = [:]
  private var lastUse: [String: Date] = [:]

  mutating func remember(_ cognition: Cognition, for client: String) {
    var list = cognitions[client] ?? []
    list.append(cognition)
    if list.count > ConversationMemory.perIdentity {
      list.removeFirst(list.count - ConversationMemory.perIdentity)
    }
    cognitions[client] = list
    lastUse[client] = cognition.date
    if cognitions.count > ConversationMemory.identities,
      let stalest = lastUse.min(by: { $0.value < $1.value })?.key
    {
      cognitions[stalest] = nil
      lastUse[stalest] = nil
    }
  }

  /// Every cognition kept, oldest first, with its identity: remembering them in this order
  /// rebuilds this memory.
  var all: [(client: String, cognition: Cognition)] {
    cognitions.flatMap { client, list in list.map { (client, $0) } }
      .sorted { $0.cognition.date < $1.cognition.date }
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
