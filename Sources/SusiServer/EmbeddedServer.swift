import Foundation
import SusiHTTP

/// The SUSI-compatible server running in this process on a loopback port, for `susi` when no
/// other server is configured and for tests that need a real server.
///
/// ```swift
/// let server = try await EmbeddedServer.start(ServerConfiguration(stateDirectory: folder))
/// defer { Task { await server.stop() } }
/// let client = SusiClient(baseURL: server.baseURL, websearchURL: server.websearchURL)
/// ```
public final class EmbeddedServer: Sendable {
  /// The bound port (the real one when the configuration asked for 0).
  public let port: Int
  /// The address the server listens on.
  public let host: String
  /// The request handler, for callers that want to inspect the loaded skills.
  public let handler: SusiServerHandler
  private let http: HTTPServer

  private init(port: Int, host: String, handler: SusiServerHandler, http: HTTPServer) {
    self.port = port
    self.host = host
    self.handler = handler
    self.http = http
  }

  /// Loads skills and saved state, binds the socket and starts serving.
  ///
  /// Throws when the saved state cannot be read or the address cannot be bound.
  public static func start(_ configuration: ServerConfiguration) async throws -> EmbeddedServer {
    let handler = try SusiServerHandler(configuration: configuration)
    let http = HTTPServer(
      configuration: HTTPServer.Configuration(host: configuration.host, port: configuration.port),
      handler: handler)
    let port = try http.start()
    return EmbeddedServer(port: port, host: configuration.host, handler: handler, http: http)
  }

  /// `http://127.0.0.1:PORT`: the SUSI API base URL (no trailing slash).
  public var baseURL: URL {
    // The fallback cannot be reached: the string is always a valid URL.
    URL(string: baseURLString) ?? URL(fileURLWithPath: "/")
  }

  /// The DuckDuckGo-format web search endpoint of this server, `…/duckduckgo/`.
  public var websearchURL: URL { baseURL.appendingPathComponent("duckduckgo/") }

  /// The base URL as text; a wildcard bind address is reported as loopback.
  public var baseURLString: String {
    var address = host
    if address == "0.0.0.0" || address.isEmpty { address = "127.0.0.1" }
    if address == "::" { address = "::1" }
    if address.contains(":") { address = "[\(address)]" }
    return "http://\(address):\(port)"
  }

  /// Stops accepting, finishes the requests in flight and closes the socket.
  public func stop() async {
    await http.shutdown()
  }
}
