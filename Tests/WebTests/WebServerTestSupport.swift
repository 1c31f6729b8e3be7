import Foundation
import SusiAccess
import SusiApplication
import SusiCommandLine
import SusiCore
import SusiHTTPServer
import SusiHTTPTesting
import SusiHTTPTypes
import SusiJSON
import SusiServe
import SusiStore
import SusiWeb
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

// Shared pieces of the web server tests: a running susi (real log, built-in server) with the
// web handler in front, requests answered in process, and a small client for the real binary.

/// A fresh folder for one test's files.
func temporaryDirectory() -> String {
  let path = TestScratch.root.appendingPathComponent(
    "susi-web-\(UUID().uuidString)"
  ).path
  try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

/// A response with its body read whole (streamed bodies included).
struct Answer: Sendable {
  var status: Int
  var headers: HTTPHeaders
  var body: [UInt8]

  var text: String { String(decoding: body, as: UTF8.self) }

  /// The `code` of a `{"error":{"code":…}}` body.
  var errorCode: String? {
    guard let json = try? JSONParser.parse(body), let error = json["error"] else { return nil }
    return error["code"]?.string
  }

  static func collect(_ response: HTTPResponse) async throws -> Answer {
    var body = response.body
    if let stream = response.bodyStream {
      let gathered = Mutex<[UInt8]>([])
      try await stream.produce(HTTPBodyWriter { bytes in gathered.withLock { $0 += bytes } })
      body = gathered.withLock { $0 }
    }
    return Answer(status: response.status, headers: response.headers, body: body)
  }
}

/// susi started on a log in a temporary folder, with the web handler in front of its store.
struct WebFixture {
  /// The port the handler is told it listens on (no socket is opened).
  static let port = 4242
  static let origin = "http://127.0.0.1:\(port)"
  /// How long `?wait=1` waits for results: it returns as soon as they are in, so a long limit
  /// only matters on a loaded machine, where a chat can take seconds.
  static let waitLimit: Int64 = 120_000

  let app: SusiApp
  let service: WebhookService
  let handler: WebHandler
  let directory: String
  /// The first start token (`susi web`) or an admin key (`susi serve --web`).
  let secret: String
  /// The start links (`susi web`).
  var links: StartLinks? = nil

  var store: Store { app.store }
  var log: String { app.options.log }

  /// `susi web`: a session for whoever presents the token.
  static func local(
    directory: String = temporaryDirectory(), pages: WebPages? = nil,
    links: StartLinks = StartLinks(), snapshotEvery: Int? = nil
  ) async throws -> WebFixture {
    let app = try await start(directory, snapshotEvery: snapshotEvery)
    let service = await WebhookService.start(
      store: app.store, keys: KeyFile.none(),
      options: WebhookHandler.Options(waitLimit: waitLimit, origin: .web))
    let token = links.make()
    let handler = WebHandler(
      mode: .local(links), service: service, app: app, pages: try pages ?? installedPages())
    handler.listening(on: port)
    return WebFixture(
      app: app, service: service, handler: handler, directory: directory, secret: token,
      links: links)
  }

  /// `susi serve --web`: the pages under /web/, sessions for keys; `secret` is an admin key.
  static func mounted(directory: String = temporaryDirectory()) async throws -> WebFixture {
    let app = try await start(directory)
    let keys = try KeyFile(path: app.options.log + ".keys")
    let admin = KeyToken.generate()
    try keys.add(admin)
    try await app.store.send(
      .issueKey(.init(by: "local", key: admin.keyID, groups: ["admin"])), origin: .cli)
    let service = await WebhookService.start(
      store: app.store, keys: keys, options: WebhookHandler.Options(waitLimit: waitLimit))
    let handler = WebHandler(
      mode: .mounted, service: service, app: app, pages: try installedPages())
    return WebFixture(
      app: app, service: service, handler: handler, directory: directory, secret: admin.text)
  }

  /// - Parameter snapshotEvery: how many events apart snapshots are written (the default's
  ///   interval when nil).
  private static func start(_ directory: String, snapshotEvery: Int? = nil) async throws
    -> SusiApp
  {
    var options = CommonOptions(log: directory + "/events.jsonl", stateDirectory: directory)
    options.allowsPrivateTargets = true
    var environment = ProcessInfo.processInfo.environment
    if let snapshotEvery { environment[LogRecovery.intervalVariable] = "\(snapshotEvery)" }
    return try await SusiApp.start(options, origin: .web, environment: environment)
  }

  static func installedPages() throws -> WebPages {
    guard let pages = WebPages.installed() else {
      throw WebhookError(500, "test", "the web resources are not beside the test binary")
    }
    return pages
  }

  /// Sends a request to the handler; `session` is a session id, `origin` an `Origin` header.
  func request(
    _ method: String, _ target: String, session: String? = nil, origin: String? = nil,
    key: String? = nil, body: String? = nil, headers: [(String, String)] = []
  ) async throws -> Answer {
    var all = HTTPHeaders(headers)
    all.add("Host", "127.0.0.1:\(Self.port)")
    if let session { all.add("X-Susi-Session", session) }
    if let origin { all.add("Origin", origin) }
    if let key { all.add("Authorization", "Bearer \(key)") }
    if body != nil && all["Content-Type"] == nil { all.add("Content-Type", "application/json") }
    let request = HTTPRequest(
      method: HTTPMethod(method), target: target, headers: all, body: Array((body ?? "").utf8))
    return try await Answer.collect(await handler.handle(request))
  }

  /// Signs in as the page does with a fresh link's token (`susi web`); the session id.
  func signIn() async throws -> String {
    let token = links?.make() ?? secret
    return try await redeem(token)
  }

  /// Trades `token` for a session as the page does; the session id.
  func redeem(_ token: String) async throws -> String {
    let answer = try await request(
      "POST", "/session", origin: Self.origin, body: #"{"token":"\#(token)"}"#)
    guard answer.status == 200, let json = try? JSONParser.parse(answer.body),
      let id = json["session"]?.string
    else {
      throw WebhookError(answer.status, "test", "no session: \(answer.text)")
    }
    return id
  }

  /// The session id a `POST /session` answer carries.
  static func sessionID(_ answer: Answer) -> String? {
    guard answer.status == 200, let json = try? JSONParser.parse(answer.body) else { return nil }
    return json["session"]?.string
  }

  /// Sends an intent as the page does, waiting for its results.
  @discardableResult
  func post(_ intent: String, session: String) async throws -> Answer {
    try await request(
      "POST", "/actions?wait=1", session: session, origin: Self.origin, body: intent)
  }

  /// Runs `body` with a `susi web` fixture, stopping it afterwards.
  static func withLocal(
    directory: String = temporaryDirectory(), pages: WebPages? = nil,
    links: StartLinks = StartLinks(), snapshotEvery: Int? = nil,
    _ body: (WebFixture) async throws -> Void
  ) async throws {
    let web = try await local(
      directory: directory, pages: pages, links: links, snapshotEvery: snapshotEvery)
    do {
      try await body(web)
    } catch {
      await web.stop()
      throw error
    }
    await web.stop()
  }

  /// Runs `body` with a `susi serve --web` fixture, stopping it afterwards.
  static func withMounted(_ body: (WebFixture) async throws -> Void) async throws {
    let web = try await mounted()
    do {
      try await body(web)
    } catch {
      await web.stop()
      throw error
    }
    await web.stop()
  }

  func stop() async {
    await service.shutdown()
    await app.stop()
  }
}

/// The headers every answer of the web frontend carries.
let expectedPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
  + "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/// Whether `answer` carries the security headers (and no CORS header).
func isHardened(_ answer: Answer, cached: Bool = false) -> Bool {
  answer.headers["Content-Security-Policy"] == expectedPolicy
    && answer.headers["X-Content-Type-Options"] == "nosniff"
    && answer.headers["Referrer-Policy"] == "no-referrer"
    && (cached || answer.headers["Cache-Control"] == "no-store")
    && !answer.headers.contains { $0.name.lowercased().hasPrefix("access-control-") }
}

/// One HTTP/1.1 exchange with 127.0.0.1:`port` over a fresh connection (`Connection: close`),
/// reading at most 20 s; nil when no complete answer came.
func exchange(
  port: Int, _ method: String, _ target: String, headers: [(String, String)] = [],
  body: String = ""
) -> Answer? {
  guard let client = try? LoopbackHTTPClient(port: port, timeoutSeconds: 20),
    let response = try? client.request(
      method, target, headers: [("Connection", "close")] + headers, body: body)
  else { return nil }
  var answerHeaders = HTTPHeaders()
  for (name, value) in response.headers { answerHeaders.add(name, value) }
  return Answer(status: response.status, headers: answerHeaders, body: response.body)
}
