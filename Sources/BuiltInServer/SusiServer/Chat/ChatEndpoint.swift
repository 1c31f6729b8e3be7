import Foundation
import SusiJSON
import Synchronization

/// `/susi/chat.json`: answers a query in the current (since 2019-11) envelope and remembers
/// the reply in the caller's memory.
///
/// `focus=NAME` lets the focus skills (`::on NAME`) answer first, `persona=NAME` the persona
/// skill of that name. Not read here: `dream`, `instant`, private bots, `excludeDefaultSkills`.
/// `debug=true` keeps duplicate-expression actions (no `uniqueActions`).
enum ChatEndpoint {
  static func handle(_ request: EndpointRequest) throws(APIError) -> JSONReply {
    let parameters = request.parameters
    let query = (parameters["q"] ?? "").trimmed
    let timezoneOffset = try parameters.int("timezoneOffset", 0)
    let latitude = try parameters.double("latitude", .nan)
    let longitude = try parameters.double("longitude", .nan)
    let language = parameters.nonEmpty("language") ?? "en"
    let debug = parameters["debug"] == "true"

    var observations: [(String, JSON)] = [
      ("timezoneOffset", .string(String(timezoneOffset))), ("language", .string(language)),
      ("client_host", .string(request.clientHost)),
    ]
    if !latitude.isNaN && !longitude.isNaN {
      observations += [
        ("latitude", .string(String(latitude))), ("longitude", .string(String(longitude))),
      ]
    }
    if let code = parameters.nonEmpty("country_code"),
      let name = parameters.nonEmpty("country_name")
    {
      observations += [("country_code", .string(code)), ("country_name", .string(name))]
    }

    let context = request.context
    let engine = AnswerEngine(library: context.library, procedures: context.procedures)
    let focus = parameters.nonEmpty("focus")
    let persona = parameters.nonEmpty("persona")
    let queryDate = request.now
    let key = memoryKey(request.identity)
    // What this user's earlier chats assigned (also in other processes sharing the state), and
    // the random source, read under the state lock; the thinking runs outside it, since a
    // skill's console rule may wait on the network.
    var thought: AnswerEngine.Thought?
    if !query.isEmpty {
      var (remembered, random) = context.state.withLock { state in
        context.store?.catchUpMemory(&state)
        return (state.memory.rememberedValues(key), state.random)
      }
      thought = engine.think(
        query: query,
        context: AnswerEngine.Context(
          language: language, observations: observations, remembered: remembered,
          serverURL: request.baseURL, now: queryDate, debug: debug, focus: focus,
          persona: persona),
        random: &random)
      context.state.withLock { $0.random = random }
    }
    let (reply, cognition) = context.state.withLock {
      state -> (JSONReply, ConversationMemory.Cognition?) in
      var envelope = JSONObject()
      envelope["query"] = .string(query)
      // The number of answers asked for, which the real server sent until mid-2019 and older
      // clients still read.
      envelope["count"] = 1
      if let thought {
        if let skill = thought.skill { state.usage[skill.serverPath, default: 0] += 1 }
        envelope["answers"] = .array([
          .object([
            "data": .array(thought.data), "metadata": ["count": .int(thought.data.count)],
            "actions": .array(thought.actions.map(JSON.object)),
            "skills": .array([.string(thought.skillPath)]),
          ])
        ])
      }
      let answerDate = max(context.now, queryDate)
      envelope["query_date"] = .string(SusiDateFormat.millis(queryDate))
      envelope["query_language"] = .string(language)
      envelope["answer_date"] = .string(SusiDateFormat.millis(answerDate))
      envelope["answer_time"] = .int(
        Int((answerDate.timeIntervalSince(queryDate) * 1000).rounded()))
      envelope["client_id"] = .string(request.identity.clientID)
      // Like the real server, only a reply with an answer is remembered (clients reading the
      // memory expect `answers` in every reply).
      guard envelope["answers"] != nil else { return (JSONReply(envelope), nil) }
      let cognition = ConversationMemory.Cognition(date: queryDate, envelope: envelope)
      guard context.store != nil else {
        state.memory.remember(cognition, for: key)
        return (JSONReply(envelope), nil)
      }
      return (JSONReply(envelope), cognition)
    }
    // Saved outside the state lock, so chats on other threads do not wait for the file.
    if let cognition, let store = context.store {
      if let appended = store.append(cognition, for: key) {
        context.state.withLock { state in
          store.remember(cognition, for: key, appended: appended, &state)
          if store.memoryNeedsCompaction(size: appended.end, state) { store.compactMemory(&state) }
        }
      } else {
        context.state.withLock { $0.memory.remember(cognition, for: key) }
      }
    }
    return reply
  }

  static func memoryKey(_ identity: Identity) -> String {
    "\(identity.kind.rawValue)_\(identity.name)"
  }
}
