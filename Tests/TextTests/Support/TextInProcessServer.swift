import Foundation
import SusiHTTPClient
import SusiHTTPServer
import SusiRunner
import SusiServer

/// The embedded server's request handler behind a transport, without sockets: the effects
/// runner talks to it as it would over HTTP, so text sessions can be tested against the real
/// runner and the real server logic in one process.
struct TextInProcessServer: HTTPTransport {
  /// The base URL the runner is given; every request goes to the handler, whatever its host.
  static let baseURL = "http://susi.test"

  let handler: SusiServerHandler

  init(stateDirectory: URL? = nil) throws {
    handler = try SusiServerHandler(
      configuration: ServerConfiguration(stateDirectory: stateDirectory, seed: 7))
  }

  func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
    guard let schemeEnd = request.url.range(of: "://") else { throw .invalidURL("not absolute") }
    let afterScheme = request.url[schemeEnd.upperBound...]
    let target = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
    let response = await handler.handle(
      HTTPRequest(
        method: request.method, target: target, headers: request.headers, body: request.body))
    return TransportResponse(
      status: response.status, headers: response.headers, body: response.body)
  }
}
