import SusiCore
import SusiHTTPClient
import SusiJSON

/// Reads `memory.json`: `cognitions` (chat envelopes, newest first) and
/// `cognitions_remaining`.
enum MemoryDecoder {
  /// Reads a `memory.json` reply.
  static func history(_ response: TransportResponse) throws(RunnerFailure)
    -> (entries: [HistoryEntry], remaining: Int)
  {
    let place = Endpoints.memory.path
    return try ReplyReader.read(
      response, endpoint: Endpoints.memory, place: place,
      bytes: { try history($0, place: place) }, tree: { try history($0, place: place) })
  }

  static func history(_ reply: some ReplyFields, place: String) throws
    -> (entries: [HistoryEntry], remaining: Int)
  {
    try ReplyReader.requireAccepted(reply, place: place)
    var history = History(place: place)
    try reply.addObjects("cognitions", to: &history, reply: "the memory", place: place)
    return (history.entries, max(0, try reply.lenientInt("cognitions_remaining") ?? 0))
  }

  /// The entries of a memory's cognitions, each read as a chat reply.
  private struct History: ReplyObjectCollector {
    let place: String
    var entries: [HistoryEntry] = []

    mutating func add(_ cognition: some ReplyFields) throws {
      let exchange = try ChatDecoder.exchange(cognition, fallbackQuery: "", place: place)
      entries.append(
        HistoryEntry(
          query: exchange.query, answers: exchange.answers + exchange.planned.flatMap(\.answers),
          queryDate: exchange.queryDate, answerDate: exchange.answerDate))
    }
  }
}
