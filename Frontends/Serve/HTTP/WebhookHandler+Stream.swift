import SusiAccess
import SusiCore
import SusiHTTPServer
import SusiHTTPTypes

// GET /events/stream: server-sent events.

extension WebhookHandler {
  /// A streamed `text/event-stream` response that runs an `EventStreamSession` until the client
  /// goes away, its key loses the privilege, or the server stops.
  func eventStream(
    _ request: HTTPRequest, _ caller: Caller, holds: @escaping @Sendable (Privilege) -> Bool
  ) throws(WebhookError) -> HTTPResponse {
    let session = try eventStreamSession(request, caller, holds: holds)
    guard let slot = streams.open(caller.keyID, limit: options.maximumStreamsPerKey) else {
      throw WebhookError(
        429, "too_many_streams",
        "this key has \(options.maximumStreamsPerKey) event streams open already; close one first",
        headers: ["Retry-After": "5"])
    }
    let headers: HTTPHeaders = [
      "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
    ]
    return HTTPResponse(status: 200, headers: headers) { body in
      try await session.run { try await body.write($0) }
      // The slot is held for as long as the stream runs.
      withExtendedLifetime(slot) {}
    }
  }
}
