import SusiCore
import Testing

/// The live state keeps the recent transcript only, so its size does not grow with the log.
@Suite struct TranscriptLimitTests {
  @Test func keepsTheMostRecentLinesAndDropsOlderOnesInBulk() {
    var state = State()
    let limit = State.transcriptLimit
    var largest = 0
    for seq in 1...(5 * limit + 7) {
      let event = Event(
        seq: seq, at: Timestamp(milliseconds: Int64(seq)), origin: .cli, cause: nil, id: nil,
        idempotencyKey: nil, action: .sendMessage(Action.SendMessage(query: "q\(seq)")))
      _ = reduce(&state, event)
      largest = max(largest, state.transcript.count)
      // Requests end so that in-flight bookkeeping does not grow either.
      state.inFlight[seq] = nil
    }
    #expect(largest == 2 * limit)
    #expect(state.transcript.count >= limit)
    #expect(state.transcript.last?.query == "q\(5 * limit + 7)")
    let seqs = state.transcript.map(\.seq)
    #expect(seqs == Array((seqs.first ?? 0)...(5 * limit + 7)))
  }
}
