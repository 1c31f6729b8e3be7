public import Foundation
import SusiHTTPServer

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
  /// Whether it speaks HTTPS.
  public let secure: Bool

  private init(
    port: Int, host: String, handler: SusiServerHandler, http: HTTPServer, secure: Bool = false
  ) {
    self.port = port
    self.host = host
    self.handler = handler
    self.http = http
    self.secure = secure
  }

  /// The port the built-in server inside `susi` listens on unless told otherwise. Fixed, so that
  /// the links it gives (pages, images: `http://127.0.0.1:7874/…`) still work after a restart.
  public static let defaultPort = 7874

  /// Loads skills and saved state, binds the socket and starts serving.
  ///
  /// - Parameter fallBackToAnyPort: when the configured port cannot be bound (another program,
  ///   or another susi, holds it), listen on a free port instead of failing.
  ///
  /// Throws when the saved state cannot be read or the address cannot be bound.
  public static func start(_ configuration: ServerConfiguration, fallBackToAnyPort: Bool = false)
    async throws -> EmbeddedServer
  {
    let handler = try SusiServerHandler(configuration: configuration)
    var settings = HTTPServer.Configuration(
      host: configuration.host, port: configuration.port, tls: configuration.tls)
    // Anonymous memory and login lockouts are per caller: tell local users apart.
    settings.identifiesLoopbackUsers = true
    let served = configuration.frontHandler?(handler) ?? handler
    var http = HTTPServer(configuration: settings, handler: served)
    let port: Int
    do {
      port = try http.start()
    } catch let error as HTTPServerError
      where fallBackToAnyPort && configuration.port != 0 && error.code == .socketFailed
    {
      settings.port = 0
      http = HTTPServer(configuration: settings, handler: served)
      port = try http.start()
    }
    return EmbeddedServer(
      port: port, host: configuration.host, handler: handler, http: http,
      secure: configuration.tls != nil)
  }

  /// `http://127.0.0.1:PORT` (`https://` with TLS): the SUSI API base URL (no trailing slash).
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
    return "\(secure ? "https" : "http")://\(address):\(port)"
  }

  /// Stops accepting, finishes the requests in flight and closes the socket.
  public func stop() async {
    await http.shutdown()
  }
}
