import SusiCore
import SusiJSON

/// Reads `memory.json`: `cognitions` (chat envelopes, newest first) and
/// `cognitions_remaining`.
enum MemoryDecoder {
  static func history(_ object: JSONObject, place: String) throws(RunnerFailure)
    -> (entries: [HistoryEntry], remaining: Int)
  {
    try ReplyReader.requireAccepted(object, place: place)
    var entries: [HistoryEntry] = []
    switch object["cognitions"] {
    case nil, .null?:
      break
    case .array(let cognitions)?:
      for cognition in cognitions {
        guard let cognition = cognition.object else { continue }
        let exchange = try ChatDecoder.exchange(cognition, fallbackQuery: "", place: place)
        entries.append(
          HistoryEntry(
            query: exchange.query, answers: exchange.answers + exchange.planned.flatMap(\.answers),
            queryDate: exchange.queryDate, answerDate: exchange.answerDate))
      }
    case let other?:
      throw RunnerFailure(
        .badResponse, "the memory from \(place) has \(other.kindName) for cognitions")
    }
    return (entries, max(0, object.int("cognitions_remaining") ?? 0))
  }
}
