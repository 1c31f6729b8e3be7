public import SusiHTTPServer
import SusiHTTPTypes
import Synchronization

/// An HTTP handler in front of another that gives every request an id and writes one line for
/// it to the operators' log: method, path (never the query, which may carry a token), status,
/// time to the response head, body size, the client's address and the id.
///
/// The id is the request's own `X-Request-Id` when it is a sane token (so a proxy's id carries
/// through), otherwise a new one; the inner handler sees it in that header, and the response
/// gives it back in `X-Request-Id`.
public struct RequestLogging: HTTPHandler {
  public let inner: any HTTPHandler
  public let log: OperatorLog
  private let ids: RequestIDs

  public init(_ inner: any HTTPHandler, log: OperatorLog) {
    self.inner = inner
    self.log = log
    ids = RequestIDs()
  }

  /// The header that carries the id both ways.
  public static var header: String { "X-Request-Id" }

  public func handle(_ request: HTTPRequest) async -> HTTPResponse {
    var request = request
    let id = Self.id(of: request) ?? ids.next()
    request.headers.set(Self.header, id)
    let started = ContinuousClock.now
    return logged(await inner.handle(request), to: request, id: id, started: started)
  }

  /// Whether the inner handler may take `request` without a task.
  public func respondsInline(to request: HTTPRequest) -> Bool { inner.respondsInline(to: request) }

  /// Offers the request, with its id, to the inner handler to answer without a task; what it
  /// answers is logged as `handle(_:)` logs it.
  public func respond(to request: HTTPRequest, with responder: HTTPResponder) -> Bool {
    var request = request
    let id = Self.id(of: request) ?? ids.next()
    request.headers.set(Self.header, id)
    let started = ContinuousClock.now
    let logging = self
    let seen = request
    return inner.respond(
      to: request,
      with: HTTPResponder(executor: responder.executor) { response in
        responder(logging.logged(response, to: seen, id: id, started: started))
      })
  }

  /// `response` with the request's id, once its line is written.
  private func logged(
    _ response: HTTPResponse, to request: HTTPRequest, id: String, started: ContinuousClock.Instant
  ) -> HTTPResponse {
    var response = response
    response.headers.set(Self.header, id)
    let elapsed = ContinuousClock.now - started
    let milliseconds =
      Double(elapsed.components.seconds) * 1000
      + Double(elapsed.components.attoseconds) / 1e15
    let level: OperatorLog.Level =
      response.status >= 500 ? .error : response.status >= 400 ? .warning : .info
    log.request(
      level, id: id, method: request.method.text, path: request.path, status: response.status,
      milliseconds: (milliseconds * 10).rounded() / 10,
      bytes: response.bodyStream == nil ? response.body.count : -1,
      client: request.remoteAddress)
    return response
  }

  /// The request's id for a handler behind this one (which always sets it), or a sane id a
  /// client sent without one in front; nil otherwise.
  public static func id(of request: HTTPRequest) -> String? {
    request.headers[header].flatMap(acceptable)
  }

  public func isPriority(_ request: HTTPRequest) -> Bool { inner.isPriority(request) }

  /// `text` when it can serve as an id (1 to 64 of `A-Za-z0-9._-`), else nil.
  static func acceptable(_ text: String) -> String? {
    guard (1...64).contains(text.utf8.count),
      text.utf8.allSatisfy({
        ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
          || $0 == 0x2D || $0 == 0x2E || $0 == 0x5F
      })
    else { return nil }
    return text
  }
}

/// Request ids: a random prefix per process and a counter, so ids are unique across restarts
/// and nodes and cost no randomness per request.
final class RequestIDs: Sendable {
  private let prefix: String
  private let counter = Atomic<Int>(0)

  init() {
    var generator = SystemRandomNumberGenerator()
    let random = generator.next() as UInt64
    let hex = String(random, radix: 16)
    prefix = String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// `PREFIX-N`, written into the string's own storage (one allocation).
  func next() -> String {
    let n = counter.add(1, ordering: .relaxed).newValue
    var digits = 1
    var rest = n
    while rest >= 10 {
      rest /= 10
      digits += 1
    }
    var prefix = self.prefix
    return prefix.withUTF8 { head in
      String(unsafeUninitializedCapacity: head.count + 1 + digits) { text in
        _ = text.initialize(fromContentsOf: head)
        text[head.count] = UInt8(ascii: "-")
        var value = n
        for index in stride(from: head.count + digits, to: head.count, by: -1) {
          text[index] = UInt8(truncatingIfNeeded: value % 10) &+ 0x30
          value /= 10
        }
        return head.count + 1 + digits
      }
    }
  }
}
