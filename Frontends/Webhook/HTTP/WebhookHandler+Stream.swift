import SusiHTTP

// GET /events/stream: server-sent events.

extension WebhookHandler {
  func eventStream(_ request: HTTPRequest, _ caller: Caller) throws(WebhookError) -> HTTPResponse {
    _ = try eventStreamSession(request, caller)
    throw WebhookError(
      501, "not_implemented", "streaming responses need the HTTP server's streaming support")
  }
}
