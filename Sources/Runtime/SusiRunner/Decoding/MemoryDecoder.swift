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
    var entries: [HistoryEntry] = []
    func add(_ cognition: some ReplyFields) throws {
      let exchange = try ChatDecoder.exchange(cognition, fallbackQuery: "", place: place)
      entries.append(
        HistoryEntry(
          query: exchange.query, answers: exchange.answers + exchange.planned.flatMap(\.answers),
          queryDate: exchange.queryDate, answerDate: exchange.answerDate))
    }
    if reply.has("cognitions") {
      // Read as the reader reads objects; as trees when some cognition is not an object
      // (skipped).
      if let cognitions = try? reply.objects("cognitions") {
        for cognition in cognitions { try add(cognition) }
      } else {
        let value = try reply.value("cognitions")
        guard case .array(let cognitions) = value else {
          throw RunnerFailure(
            .badResponse, "the memory from \(place) has \(value.kindName) for cognitions")
        }
        for case .object(let cognition) in cognitions { try add(FieldReader(cognition)) }
      }
    }
    return (entries, max(0, try reply.lenientInt("cognitions_remaining") ?? 0))
  }
}
