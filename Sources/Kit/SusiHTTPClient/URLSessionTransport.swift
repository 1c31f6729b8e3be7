import Foundation
import SusiHTTPTypes
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// URLSession with explicit timeouts (on Linux its resource timeout defaults to seven days), a
/// body limit enforced while the body arrives, optional refusal of redirects, and no cookies or
/// cache. `SocketTransport` uses it for `https://` only: while it waits for a reply it keeps a
/// core busy (its write event source stays armed on an always-writable socket).
public final class URLSessionTransport: HTTPTransport {
  private let session: URLSession
  private let delegate: Delegate

  /// - Parameters:
  ///   - idleTimeout: longest wait for a connection or for more bytes, in seconds.
  ///   - resourceTimeout: longest time for any exchange, in seconds. Requests also carry their
  ///     own (usually shorter) total timeout, which the runner enforces.
  public init(idleTimeout: Double = 15, resourceTimeout: Double = 60) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = Self.wholeSeconds(idleTimeout)
    configuration.timeoutIntervalForResource = Self.wholeSeconds(resourceTimeout)
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    delegate = Delegate()
    session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
  }

  deinit { session.invalidateAndCancel() }

  /// Timeouts in whole seconds, at least one: on Linux a fraction is cut off, and a timeout
  /// under a second would fire at once.
  static func wholeSeconds(_ seconds: Double) -> Double {
    guard seconds.isFinite else { return 60 }
    return max(1, seconds.rounded(.up))
  }

  /// Sends `request` through URLSession within its limits.
  public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
    guard let url = URL(string: request.url),
      let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
    else { throw .invalidURL("not an absolute http(s) URL") }
    var urlRequest = URLRequest(url: url)
    urlRequest.httpMethod = request.method
    urlRequest.timeoutInterval = Self.wholeSeconds(request.idleTimeout)
    urlRequest.httpShouldHandleCookies = false
    for field in request.headers {
      urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
    }
    if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
    let task = session.dataTask(with: urlRequest)
    let delegate = delegate
    // The cancellation handler runs at once when the caller is already cancelled, before the
    // exchange has begun; `Delegate.cancel` copes with either order.
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        if delegate.begin(task, request: request, continuation: continuation) { task.resume() }
      }
    } onCancel: {
      delegate.cancel(task)
    }
    delegate.forget(task)
    return try result.get()
  }

  /// Collects each task's reply and finishes it exactly once.
  private final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    typealias Continuation = CheckedContinuation<Result<TransportResponse, TransportError>, Never>

    private struct Exchange {
      var limit: Int
      var truncates: Bool
      var followsRedirects: Bool
      var continuation: Continuation
      var status = 0
      var headers: HTTPHeaders = [:]
      var body: [UInt8] = []
    }

    /// The exchanges in progress by task identifier, and the tasks cancelled before theirs began.
    private struct Table {
      var exchanges: [Int: Exchange] = [:]
      var cancelledEarly: Set<Int> = []

      subscript(id: Int) -> Exchange? {
        get { exchanges[id] }
        set { exchanges[id] = newValue }
      }

      mutating func removeValue(forKey id: Int) -> Exchange? { exchanges.removeValue(forKey: id) }
    }

    private let exchanges = Mutex(Table())

    /// Registers the exchange of `task`. Returns false, with the continuation already resumed
    /// as cancelled, when the caller was cancelled first: the task must then not be started.
    func begin(_ task: URLSessionTask, request: TransportRequest, continuation: Continuation)
      -> Bool
    {
      let cancelled = exchanges.withLock { table -> Bool in
        if table.cancelledEarly.remove(task.taskIdentifier) != nil { return true }
        table[task.taskIdentifier] = Exchange(
          limit: request.maximumBodyBytes, truncates: request.truncatesLongBodies,
          followsRedirects: request.followsRedirects, continuation: continuation)
        return false
      }
      if cancelled { continuation.resume(returning: .failure(.cancelled)) }
      return !cancelled
    }

    /// Ends the exchange of `task` as cancelled, now, and stops the task. Before the exchange
    /// has begun this only notes the cancellation for `begin`: URLSession's report for a task
    /// cancelled before it was resumed may come before the exchange exists, or never, so
    /// waiting for it could wait forever.
    func cancel(_ task: URLSessionTask) {
      let exchange = exchanges.withLock { table -> Exchange? in
        guard let exchange = table.removeValue(forKey: task.taskIdentifier) else {
          table.cancelledEarly.insert(task.taskIdentifier)
          return nil
        }
        return exchange
      }
      exchange?.continuation.resume(returning: .failure(.cancelled))
      task.cancel()
    }

    /// Drops what is left of `task` once its `send` has returned (a cancellation noted after
    /// the exchange ended).
    func forget(_ task: URLSessionTask) {
      exchanges.withLock { _ = $0.cancelledEarly.remove(task.taskIdentifier) }
    }

    /// Ends the exchange of `task` with `result`, unless it has already ended.
    private func finish(_ task: URLSessionTask, _ result: Result<TransportResponse, TransportError>)
    {
      let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
      exchange?.continuation.resume(returning: result)
    }

    private func response(of exchange: Exchange, task: URLSessionTask) -> TransportResponse {
      TransportResponse(
        status: exchange.status, headers: exchange.headers, body: exchange.body,
        finalURL: task.currentRequest?.url?.absoluteString)
    }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
      var headers = HTTPHeaders()
      let http = response as? HTTPURLResponse
      for (name, value) in http?.allHeaderFields ?? [:] {
        headers.add(String(describing: name), String(describing: value))
      }
      let tooLong = exchanges.withLock { table -> Int? in
        guard var exchange = table[dataTask.taskIdentifier] else { return nil }
        exchange.status = http?.statusCode ?? 0
        exchange.headers = headers
        table[dataTask.taskIdentifier] = exchange
        let declared = response.expectedContentLength
        return !exchange.truncates && declared > Int64(exchange.limit) ? exchange.limit : nil
      }
      if let limit = tooLong {
        finish(dataTask, .failure(.tooLarge(limit: limit)))
        completionHandler(.cancel)
      } else {
        completionHandler(.allow)
      }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      enum Next {
        case more
        case done(Result<TransportResponse, TransportError>)
      }
      let next = exchanges.withLock { table -> Next in
        guard var exchange = table[dataTask.taskIdentifier] else { return .more }
        let room = exchange.limit - exchange.body.count
        if data.count <= room {
          exchange.body.append(contentsOf: data)
          table[dataTask.taskIdentifier] = exchange
          return .more
        }
        if exchange.truncates {
          exchange.body.append(contentsOf: data.prefix(max(0, room)))
          return .done(.success(response(of: exchange, task: dataTask)))
        }
        return .done(.failure(.tooLarge(limit: exchange.limit)))
      }
      if case .done(let result) = next {
        // Stop reading: the rest of the body is never buffered.
        finish(dataTask, result)
        dataTask.cancel()
      }
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
      completionHandler: @escaping (URLRequest?) -> Void
    ) {
      let follows = exchanges.withLock { $0[task.taskIdentifier]?.followsRedirects ?? false }
      completionHandler(follows ? request : nil)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
    ) {
      guard let error else {
        let exchange = exchanges.withLock { $0[task.taskIdentifier] }
        if let exchange { finish(task, .success(response(of: exchange, task: task))) }
        return
      }
      finish(task, .failure(Self.transportError(error)))
    }

    /// Sorts URLSession's errors by whether the request can have reached the server.
    static func transportError(_ error: any Error) -> TransportError {
      guard let urlError = error as? URLError else { return .failed("network error") }
      switch urlError.code {
      case .cancelled: return .cancelled
      case .timedOut: return .timedOut
      case .cannotFindHost, .dnsLookupFailed: return .cannotConnect("the host name is unknown")
      case .cannotConnectToHost: return .cannotConnect("the connection was refused")
      case .notConnectedToInternet: return .cannotConnect("there is no network connection")
      case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
        .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
        return .cannotConnect("the TLS handshake failed")
      case .badURL, .unsupportedURL: return .invalidURL("the URL cannot be requested")
      case .networkConnectionLost: return .connectionLost("the connection was reset")
      case .badServerResponse: return .connectionLost("the server sent a malformed reply")
      case .dataLengthExceedsMaximum: return .tooLarge(limit: 0)
      default: return .failed("network error \(urlError.code.rawValue)")
      }
    }
  }
}
