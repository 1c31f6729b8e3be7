public import SusiHTTPTypes
public import SusiTLS

/// Sends one HTTP request and reads its reply: the only way the runner and the webhook
/// deliveries reach the network.
///
/// Injected (the runner takes it through `RunnerConfiguration`), so tests answer requests from
/// memory and production uses `SocketTransport`.
public protocol HTTPTransport: Sendable {
  /// Performs `request`. Implementations stop early, throwing `.cancelled`, when the calling
  /// task is cancelled.
  func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse

  /// Whether `send(request)` itself ends with `.timedOut` once `request.totalTimeout` seconds
  /// have passed on the machine's monotonic clock, counted from the call (waiting for a
  /// connection and following redirects included): a caller on the machine's clock then needs
  /// no timer of its own. False unless a transport says so.
  func keepsTotalTimeout(of request: TransportRequest) -> Bool

  /// Where a task that sends requests best runs: the thread that reads the replies, so a reply
  /// goes on in the task without waking another thread. Nil (the default): anywhere.
  var preferredTaskExecutor: (any TaskExecutor)? { get }
}

extension HTTPTransport {
  public func keepsTotalTimeout(of request: TransportRequest) -> Bool { false }

  public var preferredTaskExecutor: (any TaskExecutor)? { nil }
}

/// One HTTP request, with the limits that apply to it.
public struct TransportRequest: Sendable, Equatable {
  /// `GET` or `POST`.
  public var method: HTTPMethod
  /// The absolute URL, query included. It may hold a token: never print it.
  public var url: String
  /// Header fields to send.
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// Longest wait for the connection or for the next bytes of the reply, in seconds.
  public var idleTimeout: Double
  /// Longest time for the whole exchange, in seconds.
  public var totalTimeout: Double
  /// Whether 3xx replies are followed (true) or returned as they are (false).
  public var followsRedirects: Bool
  /// The largest reply body accepted.
  public var maximumBodyBytes: Int
  /// What to do with a body longer than `maximumBodyBytes`: fail (`.tooLarge`) or keep the
  /// first `maximumBodyBytes` and stop reading (enough for a page's `<head>`).
  public var truncatesLongBodies: Bool
  /// Which addresses the URL and each redirect may reach; nil = any (the configured SUSI
  /// server and web search, which the user chose).
  public var targetPolicy: TargetPolicy?

  /// A request; by default a `GET` with 15 s idle and 30 s total timeouts, no redirects and a
  /// 1 MiB body limit.
  public init(
    method: HTTPMethod = .get, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
    idleTimeout: Double = 15, totalTimeout: Double = 30, followsRedirects: Bool = false,
    maximumBodyBytes: Int = 1 << 20, truncatesLongBodies: Bool = false,
    targetPolicy: TargetPolicy? = nil
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.idleTimeout = idleTimeout
    self.totalTimeout = totalTimeout
    self.followsRedirects = followsRedirects
    self.maximumBodyBytes = maximumBodyBytes
    self.truncatesLongBodies = truncatesLongBodies
    self.targetPolicy = targetPolicy
  }

  /// The URL without its query string: what may appear in a message.
  public var displayURL: String {
    let end =
      url.utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? url.endIndex
    return String(url[..<end])
  }
}

/// A complete HTTP reply.
public struct TransportResponse: Sendable, Equatable {
  /// The HTTP status code.
  public var status: Int
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// The URL that answered, after any redirects; nil when it is the requested one.
  public var finalURL: String?

  /// A reply.
  public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], finalURL: String? = nil)
  {
    self.status = status
    self.headers = headers
    self.body = body
    self.finalURL = finalURL
  }

  /// The `Content-Type` without parameters, lower-cased (`application/javascript`).
  public var mediaType: String? {
    guard let value = headers["Content-Type"] else { return nil }
    let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
    return type.trimmingSpaces().lowercased()
  }

  /// The `charset` parameter of the `Content-Type`, lower-cased and unquoted.
  public var charset: String? {
    guard let value = headers["Content-Type"] else { return nil }
    for parameter in value.split(separator: ";").dropFirst() {
      let pair = parameter.split(separator: "=", maxSplits: 1)
      guard pair.count == 2, String(pair[0]).trimmingSpaces().lowercased() == "charset" else {
        continue
      }
      var charset = String(pair[1]).trimmingSpaces()
      if charset.hasPrefix("\""), charset.hasSuffix("\""), charset.count >= 2 {
        charset = String(charset.dropFirst().dropLast())
      }
      return charset.lowercased()
    }
    return nil
  }
}

/// Why a request got no complete reply.
public enum TransportError: Error, Sendable, Equatable {
  /// Nothing was sent (refused connection, unknown host, no network): safe to send again.
  case cannotConnect(String)
  /// The connection broke after the request went out: the server may have acted on it.
  case connectionLost(String)
  /// No reply in time. The request may have been acted on.
  case timedOut
  /// The reply body was longer than the request's limit.
  case tooLarge(limit: Int)
  /// The calling task was cancelled.
  case cancelled
  /// The URL cannot be requested (bad syntax, unsupported scheme).
  case invalidURL(String)
  /// The target policy refused the address (loopback, private, metadata…); the message names
  /// the URL.
  case refused(String)
  /// The TLS connection failed: the certificate was refused (expired, not yet valid, an
  /// unknown issuer, another host's), the handshake failed, or the server does not speak TLS.
  /// Nothing was sent.
  case tls(TLSFailure)
  /// Anything else the transport reports.
  case failed(String)

  /// True when the request certainly never reached the server.
  public var nothingWasSent: Bool {
    switch self {
    case .cannotConnect, .invalidURL, .refused, .tls: true
    default: false
    }
  }
}

extension TransportError: CustomStringConvertible {
  /// A sentence for a person (a subscriber's last error, an admin's refusal).
  public var description: String {
    switch self {
    case .cannotConnect(let reason): "cannot connect: \(reason)"
    case .connectionLost(let reason): "the connection broke: \(reason)"
    case .timedOut: "no answer in time"
    case .tooLarge(let limit): "the reply is larger than \(limit) bytes"
    case .cancelled: "cancelled"
    case .invalidURL(let reason): "cannot request the URL: \(reason)"
    case .refused(let reason), .failed(let reason): reason
    case .tls(let failure): failure.sentence
    }
  }
}
