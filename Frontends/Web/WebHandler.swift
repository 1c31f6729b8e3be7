import SusiAccess
public import SusiApplication
import SusiCommandLine
import SusiCore
public import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
public import SusiServe
import SusiStore
import Synchronization

/// Answers the browser frontend's requests: its pages, its sessions, the inspector and cached
/// images; everything else (`/actions`, `/state`, `/events`, `/events/stream`) goes to the
/// webhook handler, answered for the session's caller.
///
/// Every answer carries the headers of `WebSecurity.harden`. A session is an id the page sends
/// in the `X-Susi-Session` header (never a cookie: a browser would hand a cookie for 127.0.0.1
/// to every port there); a request that changes something also needs the server's own
/// `Origin`.
public final class WebHandler: HTTPHandler {
  /// How the pages are reached.
  public enum Mode: Sendable {
    /// `susi web`: the page of a printed URL trades its token (from `links`, good once) for a
    /// session (`POST /session {"token":…}`); nothing but the page's files is answered without
    /// one.
    case local(StartLinks)
    /// `susi serve --web`: the pages under `/web/` for anyone, a session for whoever signs in
    /// with a serve key (`POST /session`), and every other request answered as before.
    case mounted
  }

  let mode: Mode
  let api: WebhookHandler
  let gate: AccessGate
  /// susi as it runs: its store, its log, its image cache and the built-in server's address.
  let app: SusiApp
  let pages: WebPages
  let sessions = WebSessions()
  let pastStates: PastStates
  /// The port it is served on, and the scheme browsers use to reach it (`https` with
  /// `--tls-cert`).
  private let listening = Mutex((port: 0, scheme: "http"))

  /// What a `susi web` session may do: everything but administering access.
  static let localPrivileges = Set(Privilege.all).subtracting([
    Privilege.keysManage, Privilege.groupsManage,
  ])

  /// Whoever opened `susi web`'s link; its key id `web` scopes idempotency keys and stream
  /// slots.
  static let localCaller = Caller(keyID: "web", privileges: localPrivileges)

  /// A handler for `service`, which serves `app`'s store.
  public init(mode: Mode, service: WebhookService, app: SusiApp, pages: WebPages) {
    self.mode = mode
    self.api = service.handler
    self.gate = service.gate
    self.app = app
    self.pages = pages
    self.pastStates = PastStates(logPath: app.options.log, feed: service.feed)
  }

  /// Tells the handler the port it is served on, for the `Origin` check of `susi web`. Call it
  /// before anyone is given the URL.
  public func listening(on port: Int, secure: Bool = false) {
    listening.withLock { $0 = (port, secure ? "https" : "http") }
  }

  public func isPriority(_ request: HTTPRequest) -> Bool { api.isPriority(request) }

  public func handle(_ request: HTTPRequest) async -> HTTPResponse {
    var response: HTTPResponse
    switch mode {
    case .local(let links): response = await answerLocal(request, links: links)
    case .mounted: response = await answerMounted(request)
    }
    WebSecurity.harden(&response)
    return response
  }

  // MARK: The two modes

  private func answerLocal(_ request: HTTPRequest, links: StartLinks) async -> HTTPResponse {
    // A page of another site whose name was made to point at 127.0.0.1 (DNS rebinding) would
    // be same-origin with itself, not with us: its requests name its own host.
    guard let host = request.headers["Host"]?.lowercased(), loopbackHosts.contains(host) else {
      return WebSecurity.badHost
    }
    let path = request.path
    // The page's files hold nothing secret: they load without a session, and the page then
    // signs in with the token of its address (or the session its tab kept).
    if request.method == .get, path != "/session", Self.isPagePath(path),
      let page = pages.response(for: String(path.dropFirst()))
    {
      return page
    }
    if path == "/session" && request.method == .post {
      guard originAllowed(request) else { return WebSecurity.badOrigin }
      return redeem(request, links)
    }
    guard let session = session(request) else {
      return WebSecurity.unauthorized(
        "this page has no session: open a link that susi web prints (press Enter where it runs)")
    }
    if WebSecurity.changesState(request.method), !originAllowed(request) {
      return WebSecurity.badOrigin
    }
    return await answer(request, session)
  }

  private func answerMounted(_ request: HTTPRequest) async -> HTTPResponse {
    let path = request.path
    if path == "/web" || path.hasPrefix("/web/") {
      guard request.method == .get else { return Self.methodNotAllowed("GET") }
      if path == "/web" { return HTTPResponse(status: 301, headers: ["Location": "/web/"]) }
      return pages.response(for: String(path.dropFirst(5)))
        ?? WebhookError(404, "not_found", "no page \(path)").response
    }
    if path == "/session" && request.method != .get {
      guard originAllowed(request) else { return WebSecurity.badOrigin }
      switch request.method {
      case .post: return signIn(request)
      case .delete: return signOut(request)
      default: return Self.methodNotAllowed("GET, POST, DELETE")
      }
    }
    let session = request.headers.contains("Authorization") ? nil : session(request)
    if Self.ownPaths.contains(path) {
      guard let session = session ?? bearerSession(request) else {
        return WebSecurity.unauthorized("sign in with a key (POST /session) or send one")
      }
      return await answer(request, session)
    }
    guard let session else { return await api.handle(request) }
    if WebSecurity.changesState(request.method), !originAllowed(request) {
      return WebSecurity.badOrigin
    }
    return await answer(request, session)
  }

  // MARK: Routes for an identified caller

  /// Who a request is answered for: a session (its id), or a serve key sent with the request.
  struct Session {
    var id: String?
    var caller: Caller
  }

  /// The paths this handler answers itself, once the caller is known.
  static let ownPaths: Set<String> = ["/session", "/inspector/state", "/inspector/log", "/images"]

  private func answer(_ request: HTTPRequest, _ session: Session) async -> HTTPResponse {
    let path = request.path
    guard Self.ownPaths.contains(path) else {
      return await api.handle(request, as: session.caller, holds: holds(session.id))
    }
    if path == "/session" && request.method == .delete { return signOut(request) }
    guard request.method == .get else { return Self.methodNotAllowed("GET") }
    do {
      switch path {
      case "/session": return sessionInfo(session)
      case "/inspector/state": return try await inspectorState(request, session.caller)
      case "/inspector/log": return try inspectorLog(session.caller)
      default: return try await image(request, session.caller)
      }
    } catch {
      return error.response
    }
  }

  /// Who the session is: `{"mode", "privileges"}`, `"builtInServer"` when it runs, and
  /// `"session"` (its id) when it was just opened.
  private func sessionInfo(_ session: Session, opened: Bool = false) -> HTTPResponse {
    let mode: String =
      if case .local = self.mode { "web" } else { "serve" }
    return WebhookHandler.json(200) { o in
      if opened, let id = session.id { o.field("session", id) }
      if let builtInServer = app.embeddedServerURL { o.field("builtInServer", builtInServer) }
      o.field("mode", mode)
      o.field("privileges", session.caller.privileges.sortedNames)
    }
  }

  // MARK: Sessions

  /// The session the request's header names, if it is open and (for a key) the key still is.
  private func session(_ request: HTTPRequest) -> Session? {
    guard let id = WebSecurity.sessionID(request.headers), let holder = sessions.holder(id)
    else { return nil }
    switch holder {
    case .local:
      return Session(id: id, caller: Self.localCaller)
    case .key(let keyID):
      guard let caller = gate.caller(keyID: keyID) else {
        sessions.end(id)
        return nil
      }
      return Session(id: id, caller: caller)
    }
  }

  /// A caller whose serve key came with the request (`Authorization: Bearer …`).
  private func bearerSession(_ request: HTTPRequest) -> Session? {
    guard case .mounted = mode, let caller = try? gate.authenticate(request.headers) else {
      return nil
    }
    return Session(id: nil, caller: caller)
  }

  /// Whether the caller still holds a privilege: asked again while an event stream runs, so
  /// signing out or revoking the key ends the stream.
  private func holds(_ id: String?) -> @Sendable (Privilege) -> Bool {
    return { [sessions, gate] privilege in
      guard let id else { return false }
      switch sessions.holder(id) {
      case nil: return false
      case .local: return Self.localPrivileges.contains(privilege)
      case .key(let keyID): return gate.allows(keyID, privilege)
      }
    }
  }

  /// `POST /session {"key":"susi_…"}`: a session bound to that serve key.
  private func signIn(_ request: HTTPRequest) -> HTTPResponse {
    do { try WebhookHandler.requireJSONBody(request) } catch { return error.response }
    guard let json = try? JSONParser.parse(request.body),
      let key = try? FieldReader(json).string("key")
    else {
      return WebhookError(400, "invalid_request", #"send {"key":"<a serve key>"}"#).response
    }
    guard let caller = try? gate.authenticate(["Authorization": "Bearer \(key)"]) else {
      return WebSecurity.unauthorized("the key is unknown or revoked")
    }
    guard let id = sessions.open(.key(caller.keyID)) else { return Self.sessionsFull }
    return sessionInfo(Session(id: id, caller: caller), opened: true)
  }

  /// `POST /session {"token":"…"}` on `susi web`: the token of a printed link, good once, for a
  /// session of whoever runs susi.
  private func redeem(_ request: HTTPRequest, _ links: StartLinks) -> HTTPResponse {
    guard let json = try? JSONParser.parse(request.body),
      let token = try? FieldReader(json).string("token")
    else {
      return WebhookError(400, "invalid_request", #"send {"token":"<the link's token>"}"#)
        .response
    }
    guard links.redeem(token) else {
      return WebhookError(
        401, "link_used",
        "this link was used already or has expired; press Enter where susi web runs for a new one"
      ).response
    }
    guard let id = sessions.open(.local) else { return Self.sessionsFull }
    return sessionInfo(Session(id: id, caller: Self.localCaller), opened: true)
  }

  /// `DELETE /session`: ends the session the request names.
  private func signOut(_ request: HTTPRequest) -> HTTPResponse {
    if let id = WebSecurity.sessionID(request.headers) { sessions.end(id) }
    return HTTPResponse(status: 204)
  }

  static let sessionsFull = WebhookError(
    503, "too_many_sessions", "every session place is taken; sign out elsewhere and try again"
  ).response

  /// Whether the request's `Origin` is this server: `susi web` knows its loopback origins;
  /// on `susi serve` the origin must be the host the browser asked for.
  private func originAllowed(_ request: HTTPRequest) -> Bool {
    guard let origin = request.headers["Origin"] else { return false }
    switch mode {
    case .local:
      let scheme = listening.withLock { $0.scheme }
      return loopbackHosts.contains { "\(scheme)://\($0)" == origin }
    case .mounted:
      guard let host = request.headers["Host"] else { return false }
      return origin == "http://\(host)" || origin == "https://\(host)"
    }
  }

  /// `susi web`'s own hosts: 127.0.0.1, localhost and [::1], with its port.
  private var loopbackHosts: [String] {
    let port = listening.withLock { $0.port }
    return ["127.0.0.1", "localhost", "[::1]"].map { "\($0):\(port)" }
  }

  // MARK: Small pieces

  /// `/` and paths that name a file (`/app.js`, `/icons/star.svg`) are pages; the rest is API.
  static func isPagePath(_ path: String) -> Bool {
    path == "/" || (path.split(separator: "/").last?.contains(".") ?? false)
  }

  static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
    WebhookError(
      405, "method_not_allowed", "this path answers \(allowed)", headers: ["Allow": allowed]
    )
    .response
  }
}
