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
    guard let mark = target.firstIndex(of: "?") else { return nil }
    return String(target[target.index(after: mark)...])
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
}

extension HTTPHandler {
  /// No request uses the reserve unless the handler says so.
  public func isPriority(_ request: HTTPRequest) -> Bool { false }
}
