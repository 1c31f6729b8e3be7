import SusiClock
import SusiCore
import SusiHTTPTypes

// Chat and the server's memory of it.

extension Endpoints {
  static let chat = Endpoint(
    path: "/susi/chat.json", method: .get, access: .tokenIfLoggedIn, idempotent: false,
    why: "each query becomes a new exchange in the user's memory, counts as skill usage and"
      + " may get a different (random) answer; a resend would duplicate the conversation")

  static let memory = Endpoint(
    path: "/susi/memory.json", method: .get, access: .tokenIfLoggedIn, idempotent: true,
    why: "read-only")
}

extension SusiRunner.Performer {
  /// Sends a query with the machine's time zone and language and, when logged in, the token
  /// (`access_token`, underscore: the hyphenated name iOS used is ignored by the server).
  func chat(server: String, query: String, language: String?) async throws(RunnerFailure) -> Action
  {
    let base = try baseURL(server)
    let (token, held) = try optionalToken(server)
    var parameters = [
      ("q", query), ("timezoneOffset", String(timezoneOffsetMinutes)),
      ("language", language ?? machineLanguage), ("device_type", deviceType),
    ]
    if let token { parameters.append(("access_token", token)) }
    let reply = try await send(APICall(Endpoints.chat, parameters), base: base)
    let exchange = try ChatDecoder.exchange(reply, fallbackQuery: query)
    return .messageReceived(
      Action.MessageReceived(
        query: exchange.query, answers: exchange.answers, skill: exchange.skill,
        planned: exchange.planned, anonymous: held ? exchange.anonymous : nil))
  }

  /// One page (up to 10 exchanges) of `memory.json`, older than `before` when given.
  func fetchHistory(server: String, before: Timestamp?) async throws(RunnerFailure) -> Action {
    let base = try baseURL(server)
    var parameters = [("cognitions", "10")]
    if let before { parameters.append(("date", before.rfc3339)) }
    if let token = try optionalToken(server).token { parameters.append(("access_token", token)) }
    let reply = try await send(APICall(Endpoints.memory, parameters), base: base)
    let history = try MemoryDecoder.history(reply)
    // The page starts at the exchange asked at `before`, inclusive (the real server's `date`),
    // and that one is held already.
    let entries = history.entries.filter { entry in
      guard let before, let date = entry.queryDate else { return true }
      return date < before
    }
    return .historyLoaded(Action.HistoryLoaded(entries: entries, remaining: history.remaining))
  }

  /// A planned answer, delivered after its delay.
  func deliverLater(delayMilliseconds delay: Int, message: Action.MessageReceived)
    async throws(RunnerFailure) -> Action
  {
    do { try await clock.sleep(milliseconds: Int64(delay)) } catch { throw .cancelled }
    return .messageReceived(message)
  }
}
