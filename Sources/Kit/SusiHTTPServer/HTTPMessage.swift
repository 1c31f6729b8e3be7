public import SusiHTTPTypes

/// A complete HTTP/1.1 request, as handed to a handler.
public struct HTTPRequest: Sendable {
  /// The method; a HEAD request arrives as `GET` with `isHead` set (see `HTTPHandler`).
  public var method: HTTPMethod
  /// The request-target in origin form, e.g. `/cms/getSkillList.json?group=All`: exactly as
  /// sent, except that an absolute-form target (`http://host/path`) is reduced to its path and
  /// query, its authority becoming the `Host` field.
  public var target: String
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// The peer's address (`127.0.0.1`), used for per-host decisions and anonymous identities.
  public var remoteAddress: String
  /// The client sent HEAD: the server sends the headers of the answer, never its body.
  public var isHead: Bool
  /// The uid of the local user whose process is the client, for a client on this machine's
  /// loopback when the server was asked to tell local users apart
  /// (`Configuration.identifiesLoopbackUsers`); nil otherwise.
  public var loopbackUserID: UInt32?

  public init(
    method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
    remoteAddress: String = "127.0.0.1", isHead: Bool = false, loopbackUserID: UInt32? = nil
  ) {
    self.method = method
    self.target = target
    self.headers = headers
    self.body = body
    self.remoteAddress = remoteAddress
    self.isHead = isHead
    self.loopbackUserID = loopbackUserID
  }

  /// The target's path, percent-decoded (`/cms/getSkillList.json`).
  public var path: String {
    // One pass to the `?`: a path without `%` is returned as it is, decoded otherwise.
    let bytes = target.utf8
    var end = bytes.endIndex
    var encoded = false
    for index in bytes.indices {
      let byte = bytes[index]
      if byte == UInt8(ascii: "?") {
        end = index
        break
      }
      if byte == UInt8(ascii: "%") { encoded = true }
    }
    if !encoded && end == bytes.endIndex { return target }
    let raw = String(target[..<end])
    return encoded ? URLEncodedForm.percentDecode(raw, plusIsSpace: false) ?? raw : raw
  }

  /// The target's query string without the `?`, or nil.
  public var query: String? {
    // A byte search: a Character search breaks the target into graphemes.
    guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
    return String(target[target.utf8.index(after: mark)...])
  }
}

/// What a handler answers: a status, headers and either a complete `body` or a `bodyStream`
/// that writes the body while it is being sent (see `HTTPResponse+Streaming.swift`).
///
/// The server sets `Content-Length`, `Transfer-Encoding` and `Connection` itself; values a
/// handler puts there are replaced, except that `Connection: close` is honoured.
public struct HTTPResponse: Sendable {
  public var status: Int
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// When set, the body is produced by this stream (chunked on the wire) and `body` is ignored.
  public var bodyStream: HTTPBodyStream? = nil

  public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  public init(status: Int, contentType: String, body: String) {
    self.init(status: status, headers: ["Content-Type": contentType], body: Array(body.utf8))
  }

  /// The standard reason phrase for `status`.
  public var reasonPhrase: String { HTTPStatus.reason(status) }
}

/// Something that answers requests. The server calls it once per request, possibly from
/// several tasks at once. It runs on the server's event-loop threads, so long CPU-bound work
/// belongs in a task of its own; awaiting is fine.
///
/// HEAD works wherever GET does without the handler knowing of it: a HEAD request reaches the
/// handler as `GET` with `isHead` set, and the server sends that answer's status, headers and
/// `Content-Length` without its body (a streamed body is never started).
public protocol HTTPHandler: Sendable {
  func handle(_ request: HTTPRequest) async -> HTTPResponse

  /// Whether `request` may be served on a connection from the reserve.
  ///
  /// Once more than `maxConnections - reservedConnections` connections are open (see
  /// `HTTPLimits`), a new connection is still accepted and read, but each of its requests is
  /// served only when this answers true; any other gets `503` with `Retry-After: 1` and the
  /// connection closes. Use it for what must keep working under load: health checks, an
  /// operator's requests.
  ///
  /// It sees the request head only: `body` is empty, since it is asked before the body is read
  /// (so a refused request costs no body). It runs on an event-loop thread for every request on
  /// a reserve connection, so it must be quick and must not block; it never runs for requests
  /// on regular connections. The default answers false: no request uses the reserve.
  func isPriority(_ request: HTTPRequest) -> Bool

  /// Whether `respond(to:with:)` may take `request`: a quick look at its method and target,
  /// so that a handler in front of another does its part of `respond(to:with:)` only for the
  /// requests the inner one may take. The default answers false.
  func respondsInline(to request: HTTPRequest) -> Bool

  /// Takes `request` to answer without a task of its own, or declines it.
  ///
  /// The server asks this, on the event-loop thread that read the request, when
  /// `respondsInline(to:)` answered true. A handler that takes the request returns true and
  /// calls `responder` exactly once, at once or later, from any thread; `handle(_:)` is not
  /// called then. One that declines returns false having done nothing, and `handle(_:)` answers
  /// the request in a task. It must be quick and must not block: it suits answers decided on
  /// the spot or by work the handler gathers for many requests at once (one task for all of
  /// them rather than one each). The default declines every request.
  func respond(to request: HTTPRequest, with responder: HTTPResponder) -> Bool
}

extension HTTPHandler {
  /// No request uses the reserve unless the handler says so.
  public func isPriority(_ request: HTTPRequest) -> Bool { false }

  /// Every request is answered by `handle(_:)`.
  public func respondsInline(to request: HTTPRequest) -> Bool { false }

  /// Every request is answered by `handle(_:)`.
  public func respond(to request: HTTPRequest, with responder: HTTPResponder) -> Bool { false }
}

/// Where the answer to a request taken by `HTTPHandler.respond(to:with:)` goes.
public struct HTTPResponder: Sendable {
  /// The executor of the event loop that reads the request's connection: a task preferring it
  /// runs on that loop's thread, where the answer goes out without a thread switch.
  public let executor: any TaskExecutor
  private let send: @Sendable (HTTPResponse) -> Void

  /// A responder that runs `send` with the answer; the server makes them, a handler in front of
  /// another makes one that changes the answer on its way out.
  public init(executor: any TaskExecutor, send: @escaping @Sendable (HTTPResponse) -> Void) {
    self.executor = executor
    self.send = send
  }

  /// Sends `response` as the answer; call exactly once, from any thread.
  public func callAsFunction(_ response: HTTPResponse) { send(response) }
}
