import Foundation
import SusiAccess
import SusiApplication
import SusiCommandLine
import SusiCore
import SusiHTTPServer
import SusiHTTPTypes
import SusiServe
import SusiStore

// GET /inspector/state?seq=N and GET /inspector/log: the time-travel inspector's reads.

extension WebHandler {
  /// The state as it was right after event `seq`, in the shape of `GET /state`: replayed from
  /// the log, starting at the newest snapshot at or before `seq` when there is one.
  func inspectorState(_ request: HTTPRequest, _ caller: Caller) async throws(WebhookError)
    -> HTTPResponse
  {
    try caller.require(Privilege.eventsRead)
    let lastSeq = await app.store.lastSeq
    guard let text = request.queryValue("seq"), let seq = Int(text), (0...lastSeq).contains(seq)
    else {
      throw .badRequest(
        "invalid_seq", "seq must be a whole number from 0 to the last seq, \(lastSeq)")
    }
    // Replay reads the file and folds events: work for a task of its own, not the event loop.
    let replayed = await Task.detached { [pastStates] () -> Result<Recovered, PastStates.Failure> in
      Result { () throws(PastStates.Failure) in try pastStates.state(after: seq) }
    }.value
    switch replayed {
    case .success(let recovered):
      var response = WebhookHandler.stateResponse(
        recovered.state, includesAccess: caller.seesAccess)
      response.headers.set("X-Seq", String(seq))
      return response
    case .failure(let failure):
      throw WebhookError(500, "log_unreadable", failure.message)
    }
  }

  /// The log file as a download, streamed in pieces up to the length it had when asked.
  func inspectorLog(_ caller: Caller) throws(WebhookError) -> HTTPResponse {
    try caller.require(Privilege.eventsRead)
    let path = app.options.log
    // The length now: events appended while the download runs are left for the next one.
    guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
    else {
      throw WebhookError(500, "log_unreadable", "the event log cannot be read")
    }
    let headers: HTTPHeaders = [
      "Content-Type": "application/x-ndjson",
      "Content-Disposition": #"attachment; filename="susi-events.jsonl""#,
    ]
    // The file is opened only once the body is sent (a HEAD request never opens it).
    return HTTPResponse(status: 200, headers: headers) { body in
      guard let file = FileHandle(forReadingAtPath: path) else { return }
      defer { try? file.close() }
      var left = size
      while left > 0 {
        let piece = try file.read(upToCount: min(left, 64 * 1024)) ?? Data()
        if piece.isEmpty { break }
        left -= piece.count
        try await body.write(Array(piece))
      }
    }
  }
}
