public import SusiCore
import SusiHTTPClient
import SusiJSON

/// What the runner makes of a SUSI server's reply, without a server or a network: the same
/// readers the runner uses, for tests and the fuzz target that feed them hostile replies.
public enum ReplyDecoding {
  /// The result a `chat.json` reply body (status 200) gives the query `query` sent for event
  /// `cause` with a token (so `anonymous` is kept): `messageReceived`, or `requestFailed` when
  /// the body is no chat reply.
  public static func chat(_ body: [UInt8], query: String, cause: Int) -> Action {
    do throws(RunnerFailure) {
      let exchange = try ChatDecoder.exchange(
        TransportResponse(status: 200, body: body), fallbackQuery: query)
      return .messageReceived(
        Action.MessageReceived(
          query: exchange.query, answers: exchange.answers, skill: exchange.skill,
          planned: exchange.planned, anonymous: exchange.anonymous))
    } catch {
      return .requestFailed(Action.RequestFailed(cause: cause, error: error.requestError))
    }
  }

  /// The result a `getSkillList.json` reply body (status 200) from `server` gives a
  /// `loadSkills` of every group (event `cause`): `skillsLoaded`, or `requestFailed`.
  public static func skillList(_ body: [UInt8], server: String, cause: Int) -> Action {
    let place = Endpoints.skillList.path
    do throws(RunnerFailure) {
      let object = try ReplyReader.object(
        TransportResponse(status: 200, body: body), endpoint: Endpoints.skillList, place: place)
      let skills = try SkillsDecoder.skillList(
        object, requestedGroup: nil, language: "en", server: server, place: place)
      return .skillsLoaded(Action.SkillsLoaded(group: nil, skills: skills))
    } catch {
      return .requestFailed(Action.RequestFailed(cause: cause, error: error.requestError))
    }
  }

  /// The result a `memory.json` reply body (status 200) gives a `loadHistory` of event `cause`:
  /// `historyLoaded`, or `requestFailed` when the body is no memory reply.
  public static func memory(_ body: [UInt8], cause: Int) -> Action {
    do throws(RunnerFailure) {
      let history = try MemoryDecoder.history(TransportResponse(status: 200, body: body))
      return .historyLoaded(
        Action.HistoryLoaded(entries: history.entries, remaining: history.remaining))
    } catch {
      return .requestFailed(Action.RequestFailed(cause: cause, error: error.requestError))
    }
  }

  /// How reading `body` straight from its bytes and reading its tree differ, as a `chat.json`
  /// and as a `memory.json` reply; nil when they agree. The bytes reader may give up (the
  /// runner then reads the tree), but what it does give must be what the tree gives. Replies
  /// of any size are read both ways here, the runner's size limit aside.
  public static func disagreement(_ body: [UInt8]) -> String? {
    let chat = Endpoints.chat.path
    let memory = Endpoints.memory.path
    return disagreement(
      body, endpoint: Endpoints.chat,
      bytes: { try ChatDecoder.exchange($0, fallbackQuery: "asked", place: chat) },
      tree: { try ChatDecoder.exchange($0, fallbackQuery: "asked", place: chat) })
      ?? disagreement(
        body, endpoint: Endpoints.memory,
        bytes: { history(try MemoryDecoder.history($0, place: memory)) },
        tree: { history(try MemoryDecoder.history($0, place: memory)) })
  }

  private static func history(_ read: (entries: [HistoryEntry], remaining: Int))
    -> Action.HistoryLoaded
  {
    Action.HistoryLoaded(entries: read.entries, remaining: read.remaining)
  }

  private static func disagreement<Value: Equatable>(
    _ body: [UInt8], endpoint: Endpoint, bytes: (BytesFieldReader) throws -> Value,
    tree: (FieldReader) throws -> Value
  ) -> String? {
    let place = endpoint.path
    guard let (start, end) = try? ReplyReader.payload(body, place: place),
      let fromBytes = ReplyReader.fromBytes(body, start, end, bytes)
    else { return nil }
    do {
      let object = try ReplyReader.object(
        TransportResponse(status: 200, body: body), endpoint: endpoint, place: place)
      let fromTree = try tree(FieldReader(object))
      guard fromTree != fromBytes else { return nil }
      return "\(place): the bytes give \(fromBytes), the tree \(fromTree)"
    } catch {
      return "\(place): the bytes give \(fromBytes), the tree refuses the reply (\(error))"
    }
  }
}
