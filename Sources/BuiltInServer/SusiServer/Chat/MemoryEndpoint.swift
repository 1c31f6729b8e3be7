import Foundation
import SusiJSON

/// `/susi/memory.json`: the caller's past chat replies, newest first, at most 10 per call;
/// `date` pages back to replies asked before that time.
enum MemoryEndpoint {
  static let maximum = 10

  static func handle(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    let limit = min(try parameters.int("cognitions", maximum), maximum)
    var before: Date?
    if let text = parameters.nonEmpty("date") {
      guard let date = SusiDateFormat.parseMillis(text) else {
        throw APIError(
          500, APIError.serverError,
          cause: "java.lang.IllegalArgumentException: Invalid format: \"\(text)\"")
      }
      before = date
    }
    let key = ChatEndpoint.memoryKey(request.identity)
    let context = request.context
    let (cognitions, remaining) = context.readState { state in
      context.store?.catchUpMemory(&state)
      return state.memory.recall(key, limit: limit, before: before)
    }
    return JSONReply([
      "cognitions": .array(cognitions.map { .object($0.envelope) }),
      "cognitions_remaining": .int(remaining),
    ])
  }
}
