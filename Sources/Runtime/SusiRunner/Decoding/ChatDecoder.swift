import SusiCore
import SusiHTTPTypes
import SusiJSON

/// Reads a `chat.json` reply (and each cognition of `memory.json`, which has the same shape).
///
/// Tolerates both envelopes (the current one and the 2018 one with `count` and `language`),
/// an absent `answers` (no skill answered: an empty answer, not a failure), data rows of any
/// JSON, and dates in the server's format or others.
enum ChatDecoder {
  /// One decoded exchange.
  struct Exchange: Equatable {
    var query: String
    /// Actions to show now, in order.
    var answers: [AnswerAction]
    /// Actions planned for later, grouped by delay, soonest first.
    var planned: [PlannedAnswer]
    /// The answering skill's path (`/susi_skill_data/models/general/…/Flip a coin.txt`).
    var skill: String?
    var queryDate: Timestamp?
    var answerDate: Timestamp?
    /// `session.identity.anonymous`, when the reply has a session.
    var anonymous: Bool?
  }

  /// The most actions one reply may plan for later (`plan_delay`); further ones are dropped.
  /// Each planned delivery is logged once, with its own answers only, so the log grows with
  /// the number of planned answers, and this bounds that number.
  static let maximumPlanned = 1_000

  static func exchange(_ object: JSONObject, fallbackQuery: String, place: String)
    throws(RunnerFailure) -> Exchange
  {
    try ReplyReader.requireAccepted(object, place: place)
    var answers: [AnswerAction] = []
    var plannedByDelay: [Int: [AnswerAction]] = [:]
    var plannedCount = 0
    var skill: String?
    switch object["answers"] {
    case nil, .null?:
      break
    case .array(let list)?:
      for answer in list {
        guard let answer = answer.object else { continue }
        let rows = AnswerActionDecoder.rows(answer.array("data") ?? [])
        if skill == nil { skill = answer.strings("skills").first }
        for action in answer.array("actions") ?? [] {
          if let delay = AnswerActionDecoder.planDelay(action) {
            guard plannedCount < maximumPlanned else { continue }
            plannedCount += 1
            plannedByDelay[delay, default: []].append(
              AnswerActionDecoder.decode(action, rows: rows))
          } else {
            answers.append(AnswerActionDecoder.decode(action, rows: rows))
          }
        }
      }
    case let other?:
      throw RunnerFailure(
        .badResponse, "the chat reply from \(place) has \(other.kindName) for answers")
    }
    let planned = plannedByDelay.keys.sorted().map {
      PlannedAnswer(delayMilliseconds: $0, answers: plannedByDelay[$0] ?? [])
    }
    return Exchange(
      query: object.text("query") ?? fallbackQuery, answers: answers, planned: planned,
      skill: skill, queryDate: date(object["query_date"]), answerDate: date(object["answer_date"]),
      anonymous: object.object("session")?.object("identity")?.bool("anonymous"))
  }

  /// A date in the server's `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`, any RFC 3339 form, a
  /// `java.sql.Timestamp` text, or milliseconds since 1970; nil for anything else.
  static func date(_ value: JSON?) -> Timestamp? {
    switch value {
    case .string(let text)?:
      let trimmed = text.trimmingSpaces()
      if let parsed = Timestamp(rfc3339: trimmed) { return parsed }
      // `+0000` offsets without a colon, or a bare date.
      if trimmed.count == 10, let day = Timestamp(rfc3339: trimmed + "T00:00:00Z") { return day }
      return nil
    case .int(let milliseconds)? where milliseconds > 0:
      return Timestamp(milliseconds: Int64(milliseconds))
    default:
      return nil
    }
  }
}
