// Chat: queries, answers (including planned ones) and the server's memory.

extension State {
  /// The longest query we send; the server reads it from the URL.
  static let maximumQueryLength = 4000

  /// How many transcript lines the live state keeps at least: once it holds twice as many, the
  /// oldest are dropped down to this many (dropping in bulk keeps each event's work constant).
  /// Older lines stay in the log; `susi replay --step` or `--until` shows them.
  public static let transcriptLimit = 1_000

  /// Appends a transcript line, dropping the oldest ones in bulk past the limit.
  private mutating func record(_ entry: consuming ChatEntry) {
    if transcript.count >= 2 * Self.transcriptLimit {
      transcript.removeFirst(transcript.count - Self.transcriptLimit + 1)
    }
    transcript.append(entry)
  }

  mutating func sendMessage(_ p: Action.SendMessage, _ event: Event) -> Reaction {
    let query = p.query.trimmed
    guard !query.isEmpty else { return .rejected("the query is empty") }
    // A string has no more characters than UTF-8 bytes: count characters only when it may be
    // too long.
    guard query.utf8.count <= Self.maximumQueryLength || query.count <= Self.maximumQueryLength
    else {
      return .rejected("the query is longer than \(Self.maximumQueryLength) characters")
    }
    record(ChatEntry(seq: event.seq, at: event.at, speaker: .user, query: query))
    return start(
      .sendMessage, event,
      .chat(server: server, query: query, language: p.language ?? preferredLanguage))
  }

  mutating func messageReceived(_ p: Action.MessageReceived, _ event: Event) -> Reaction {
    let ended = finish(event, completing: .sendMessage, orPlannedAnswer: true)
    record(
      ChatEntry(
        seq: event.seq, at: event.at, speaker: .susi, query: p.query, answers: p.answers,
        skill: p.skill))
    var effects: [Effect] = []
    if p.anonymous == true, let session {
      effects.append(
        .logout(
          server: server,
          reason:
            "the server answered as if nobody were logged in; the session of \(session.email) has ended"
        ))
    }
    // What is still planned: the reply's own plan; else, when this message delivers a planned
    // answer, the rest of the plan its wait held (logs before that kept the rest in each
    // delivered message instead, which grew with the square of the plan's length).
    let plan =
      p.planned.isEmpty ? Array((ended?.plan ?? []).dropFirst()) : PlannedAnswer.chain(p.planned)
    if let next = plan.first {
      inFlight[event.seq] = InFlightRequest(
        type: .plannedAnswer, since: event.at,
        due: event.at.adding(milliseconds: Int64(next.delayMilliseconds)), plan: plan)
      effects.append(
        .deliverLater(
          delayMilliseconds: next.delayMilliseconds,
          message: Action.MessageReceived(query: p.query, answers: next.answers, skill: p.skill)))
    }
    return Reaction(effects: effects)
  }

  mutating func loadHistory(_ event: Event) -> Reaction {
    // Page backwards from the oldest exchange we hold; start again from the newest once the
    // server has nothing older. Undated exchanges sort last, so look for the oldest date.
    let before = historyRemaining == 0 ? nil : history.compactMap(\.queryDate).min()
    return start(
      .loadHistory, event, .fetchHistory(server: server, before: before))
  }

  mutating func historyLoaded(_ p: Action.HistoryLoaded, _ event: Event) -> Reaction {
    finish(event, completing: .loadHistory)
    var known = Set(history.map { HistoryKey($0) })
    for entry in p.entries where known.insert(HistoryKey(entry)).inserted { history.append(entry) }
    history.sort {
      ($0.queryDate ?? Timestamp(milliseconds: .min))
        > ($1.queryDate ?? Timestamp(milliseconds: .min))
    }
    historyRemaining = p.remaining
    return []
  }
}

/// Identifies a remembered exchange for de-duplication across pages.
private struct HistoryKey: Hashable {
  let query: String
  let date: Timestamp?
  init(_ entry: HistoryEntry) {
    query = entry.query
    date = entry.queryDate
  }
}

extension PlannedAnswer {
  /// `planned` (each delay counted from the one answer that planned them all) as a chain: each
  /// delay counted from the delivery before it, none earlier than one before it in the list.
  public static func chain(_ planned: [PlannedAnswer]) -> [PlannedAnswer] {
    var previous = 0
    return planned.map { answer in
      let delay = max(0, answer.delayMilliseconds - previous)
      previous = max(previous, answer.delayMilliseconds)
      return PlannedAnswer(delayMilliseconds: delay, answers: answer.answers)
    }
  }
}
