import Foundation
import SusiJSON

/// `/susi/memory.json`: the caller's past chat replies, newest first, at most 10 per call.
///
/// `date` (a `query_date` as replies spell it) pages back: the list starts at the reply asked
/// then, inclusive, as on the real server. The real server answers with the newest replies when
/// the date matches no reply exactly; this one starts at the newest reply asked at or before it,
/// so paging works with any date. A date that cannot be read is ignored, as the real server does.
/// Each reply carries the top-level `count` the real server sent until mid-2019, also when it was
/// remembered before this server sent it.
enum MemoryEndpoint {
  static let maximum = 10

  static func handle(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    let limit = min(try parameters.int("cognitions", maximum), maximum)
    let latest = parameters.nonEmpty("date").flatMap(SusiDateFormat.parseMillis)
    let key = ChatEndpoint.memoryKey(request.identity)
    let context = request.context
    let (cognitions, remaining) = context.readState { state in
      context.store?.catchUpMemory(&state)
      return state.memory.recall(key, limit: limit, latest: latest)
    }
    return JSONReply([
      "cognitions": .array(cognitions.map { .object(withCount($0.envelope)) }),
      "cognitions_remaining": .int(remaining),
    ])
  }

  /// The envelope with `count` after `query`, where the real server put it.
  static func withCount(_ envelope: JSONObject) -> JSONObject {
    guard envelope["count"] == nil else { return envelope }
    var members: [(String, JSON)] = []
    for member in envelope.members {
      members.append((member.key, member.value))
      if member.key == "query" { members.append(("count", 1)) }
    }
    if !members.contains(where: { $0.0 == "count" }) { members.insert(("count", 1), at: 0) }
    return JSONObject(members)
  }
}
