import Foundation
public import SusiHTTPClient
import SusiHTTPTypes
import SusiRunner
import Synchronization

/// A transport that answers from memory: tests decide every reply, see every request, and can
/// hold requests in flight to observe concurrency and cancellation.
///
/// ```swift
/// let transport = FakeTransport { request in .json(#"{"accepted":true,"groups":["Knowledge"]}"#) }
/// ```
public final class FakeTransport: HTTPTransport {
  /// Computes the reply to a request; throw a `TransportError` for the failure it meets (any
  /// other error becomes `.failed`).
  public typealias Responder = @Sendable (TransportRequest) async throws -> TransportResponse

  private struct Held {
    var request: TransportRequest
    var continuation: CheckedContinuation<Bool, Never>
  }

  private struct Book {
    var requests: [TransportRequest] = []
    var inFlight = 0
    var maximumInFlight = 0
    var holding: Bool
    var held: [(id: Int, held: Held)] = []
    var cancelledBeforeHolding: Set<Int> = []
    var watchers: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    var nextID = 0

    mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
      let ready = watchers.filter { $0.value.count <= held.count }
      for id in ready.keys { watchers[id] = nil }
      return ready.values.map(\.continuation)
    }
  }

  private let responder: Responder
  private let book: Mutex<Book>

  /// - Parameters:
  ///   - holding: when true, each request waits (counted as held) until `release` lets it
  ///     through to `responder`, or it is cancelled.
  ///   - responder: the reply to each request.
  public init(holding: Bool = false, _ responder: @escaping Responder) {
    self.responder = responder
    book = Mutex(Book(holding: holding))
  }

  /// Records `request`, holds it when holding, then answers it with the responder.
  public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
    let (id, holding) = book.withLock { book -> (Int, Bool) in
      book.requests.append(request)
      book.inFlight += 1
      book.maximumInFlight = max(book.maximumInFlight, book.inFlight)
      book.nextID += 1
      return (book.nextID, book.holding)
    }
    defer { book.withLock { $0.inFlight -= 1 } }
    if holding {
      let released = await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
          let (parked, ready) = book.withLock {
            book -> (Bool, [CheckedContinuation<Void, Never>]) in
            if book.cancelledBeforeHolding.remove(id) != nil { return (false, []) }
            book.held.append((id, Held(request: request, continuation: continuation)))
            return (true, book.satisfiedWatchers())
          }
          if !parked { continuation.resume(returning: false) }
          for watcher in ready { watcher.resume() }
        }
      } onCancel: {
        let held = book.withLock { book -> Held? in
          guard let index = book.held.firstIndex(where: { $0.id == id }) else {
            book.cancelledBeforeHolding.insert(id)
            return nil
          }
          return book.held.remove(at: index).held
        }
        held?.continuation.resume(returning: false)
      }
      guard released else { throw .cancelled }
    }
    if Task.isCancelled { throw .cancelled }
    do {
      return try await responder(request)
    } catch let error as TransportError {
      throw error
    } catch {
      throw .failed(String(describing: error))
    }
  }

  /// Lets the `count` oldest held requests through to the responder.
  public func release(_ count: Int = 1) {
    let released = book.withLock { book -> [Held] in
      let n = min(count, book.held.count)
      defer { book.held.removeFirst(n) }
      return book.held.prefix(n).map(\.held)
    }
    for held in released { held.continuation.resume(returning: true) }
  }

  /// Stops holding: every held request and every later one goes straight through.
  public func releaseAll() {
    let released = book.withLock { book -> [Held] in
      book.holding = false
      defer { book.held = [] }
      return book.held.map(\.held)
    }
    for held in released { held.continuation.resume(returning: true) }
  }

  /// Returns once at least `count` requests are held.
  public func waitForHeld(count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = book.withLock { book -> Bool in
        if book.held.count >= count { return true }
        book.nextID += 1
        book.watchers[book.nextID] = (count, continuation)
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Every request received, in order of arrival.
  public var requests: [TransportRequest] { book.withLock { $0.requests } }
  /// The requests currently held, oldest first.
  public var heldRequests: [TransportRequest] { book.withLock { $0.held.map(\.held.request) } }
  /// The most requests that were in flight at once.
  public var maximumInFlight: Int { book.withLock { $0.maximumInFlight } }
}

extension TransportResponse {
  /// A SUSI-style JSON reply: HTTP 200 (unless told), served as `application/javascript`.
  public static func json(
    _ text: String, status: Int = 200,
    contentType: String = "application/javascript; charset=utf-8",
    headers: [(String, String)] = []
  ) -> TransportResponse {
    TransportResponse(
      status: status, headers: HTTPHeaders([("Content-Type", contentType)] + headers),
      body: Array(text.utf8))
  }

  /// Jetty's HTML error page for `status`, with `message` in the title and the body.
  public static func jettyError(_ status: Int, _ message: String, headers: [(String, String)] = [])
    -> TransportResponse
  {
    let page = """
      <html>
      <head>
      <meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1"/>
      <title>Error \(status) \(message)</title>
      </head>
      <body><h2>HTTP ERROR \(status)</h2>
      <p>Problem accessing /cms/x.json. Reason:
      <pre>    \(message)</pre></p><hr><i><small>Powered by Jetty://</small></i><hr/>
      </body>
      </html>
      """
    return TransportResponse(
      status: status,
      headers: HTTPHeaders([("Content-Type", "text/html;charset=iso-8859-1")] + headers),
      body: Array(page.utf8))
  }
}

extension TransportRequest {
  /// The URL's path (`/cms/getSkillList.json`).
  public var path: String {
    var rest = Substring(url)
    if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
    guard let slash = rest.firstIndex(of: "/") else { return "/" }
    let end = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
    return slash < end ? String(rest[slash..<end]) : "/"
  }

  /// The raw query string, or nil.
  public var query: String? {
    guard let mark = url.firstIndex(of: "?") else { return nil }
    return String(url[url.index(after: mark)...])
  }

  /// Every parameter, from the query and (for a form POST) the body, decoded.
  public var parameters: [String: String] {
    var out: [String: String] = [:]
    for (key, value) in URLEncodedForm.decode(query ?? "") { out[key] = value }
    if headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true {
      for (key, value) in URLEncodedForm.decode(String(decoding: body, as: UTF8.self)) {
        out[key] = value
      }
    }
    return out
  }
}
