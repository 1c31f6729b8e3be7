import SusiClock
import SusiHTTPServer

/// A handler made of a closure.
struct ClosureHandler: HTTPHandler {
  let respond: @Sendable (HTTPRequest) async -> HTTPResponse

  init(_ respond: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
    self.respond = respond
  }

  func handle(_ request: HTTPRequest) async -> HTTPResponse { await respond(request) }
}

/// Answers `METHOD TARGET BODY` as text, so a test can see what reached the handler.
let echoHandler = ClosureHandler { request in
  HTTPResponse(
    status: 200, contentType: "text/plain",
    body: "\(request.method) \(request.target) \(String(decoding: request.body, as: UTF8.self))")
}

/// Runs `body` against a started server on 127.0.0.1 and shuts the server down afterwards.
func withServer(
  // A manual clock: no timeout fires unless the test advances time, so a test starved of CPU by
  // others running in parallel cannot be cut off by the server's real-time deadlines.
  _ configuration: HTTPServer.Configuration = HTTPServer.Configuration(clock: ManualTimeSource()),
  handler: any HTTPHandler = echoHandler,
  _ body: (HTTPServer, Int) async throws -> Void
) async throws {
  let server = HTTPServer(configuration: configuration, handler: handler)
  let port = try server.start()
  do {
    try await body(server, port)
  } catch {
    await server.shutdown()
    throw error
  }
  await server.shutdown()
}
