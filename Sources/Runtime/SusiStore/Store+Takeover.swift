import SusiCore

extension Store {
  /// Logs `requestFailed {kind: "interrupted"}` (origin `store`) for each of `seqs` that is still
  /// in flight, decided under the log's append lock after what other processes appended: a
  /// result logged first, or another process closing it first, wins and nothing is appended.
  /// For the requests of another process that stopped before their results were logged (that
  /// process ran their effects; nobody else will). Nothing is re-sent. Returns the seqs closed.
  public func closeRequestsOfAStoppedNode(_ seqs: [Int]) async -> [Int] {
    var closed: [Int] = []
    for seq in seqs.sorted() {
      guard let request = state.inFlight[seq] else { continue }
      let error = RequestError(
        kind: .interrupted,
        message:
          "the susi node that sent this \(request.type) request stopped before its answer "
          + "arrived; nothing was re-sent, ask again if needed")
      do {
        guard
          let published = try applyLogged(
            .requestFailed(Action.RequestFailed(cause: seq, error: error)), origin: .store,
            cause: seq, id: book.ledger.id(owedBy: seq), idempotencyKey: nil, onlyIfOwed: true)
        else { continue }
        try await committed(through: published.seq)
        closed.append(seq)
      } catch {
        break
      }
    }
    return closed
  }
}
