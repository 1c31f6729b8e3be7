import SusiCore
import SusiHTTPClient
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

  /// Reads a `chat.json` reply.
  static func exchange(_ response: TransportResponse, fallbackQuery: String)
    throws(RunnerFailure) -> Exchange
  {
    let place = Endpoints.chat.path
    return try ReplyReader.read(
      response, endpoint: Endpoints.chat, place: place,
      bytes: { try exchange($0, fallbackQuery: fallbackQuery, place: place) },
      tree: { try exchange($0, fallbackQuery: fallbackQuery, place: place) })
  }

  /// Reads one envelope: a `chat.json` reply, or one cognition of `memory.json`.
  static func exchange(_ reply: some ReplyFields, fallbackQuery: String, place: String) throws
    -> Exchange
  {
    try ReplyReader.requireAccepted(reply, place: place)
    var read = Answers()
    try reply.addObjects("answers", to: &read, reply: "the chat reply", place: place)
    let planned = read.plannedByDelay.keys.sorted().map {
      PlannedAnswer(delayMilliseconds: $0, answers: read.plannedByDelay[$0] ?? [])
    }
    return Exchange(
      query: try reply.lenientText("query") ?? fallbackQuery, answers: read.now, planned: planned,
      skill: read.skill, queryDate: date(try reply.optionalValue("query_date")),
      answerDate: date(try reply.optionalValue("answer_date")),
      anonymous: try reply.lenientObject("session")?.lenientObject("identity")?.lenientBool(
        "anonymous"))
  }

  /// The actions of a reply's answers, in order.
  private struct Answers: ReplyObjectCollector {
    var now: [AnswerAction] = []
    var plannedByDelay: [Int: [AnswerAction]] = [:]
    var plannedCount = 0
    /// The first answer's skill.
    var skill: String?

    mutating func add(_ answer: some ReplyFields) throws {
      var rows = AnswerActionDecoder.Rows(of: answer)
      if skill == nil {
        skill = try answer.optionalValue("skills")?.array?.lazy.compactMap(\.string).first
      }
      guard answer.has("actions") else { return }
      if let actions = try? answer.objects("actions") {
        for action in actions { try add(action, rows: &rows) }
      } else if case .array(let actions) = try answer.value("actions") {
        for action in actions {
          if case .object(let object) = action {
            try add(FieldReader(object), rows: &rows)
          } else {
            now.append(.unknown(type: "", raw: action))
          }
        }
      }
    }

    private mutating func add(
      _ action: some ReplyFields, rows: inout AnswerActionDecoder.Rows<some FieldReading>
    ) throws {
      guard let delay = try AnswerActionDecoder.planDelay(action) else {
        now.append(try AnswerActionDecoder.decode(action, rows: &rows))
        return
      }
      guard plannedCount < maximumPlanned else { return }
      plannedCount += 1
      plannedByDelay[delay, default: []].append(try AnswerActionDecoder.decode(action, rows: &rows))
    }
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
