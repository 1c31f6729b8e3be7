import Dispatch
import SusiHTTPTypes
import SusiTLS
import Synchronization

/// The production transport: our own HTTP/1.1 client on POSIX sockets, for `http://` and, with
/// the system's OpenSSL, `https://`.
///
/// - TLS 1.2 or newer, with SNI, the server's certificate checked against the system trust
///   store (`SSL_CERT_FILE` and `SSL_CERT_DIR` as OpenSSL reads them) and the `caFile`, and
///   its host name checked; there is no way to skip the check. ALPN offers `http/1.1`; a new
///   connection to an origin resumes the TLS session of the one before (an abbreviated
///   handshake). A refused certificate is `TransportError.tls`, naming the cause.
/// - Proxies (`ProxySettings`): plain requests in absolute form, `https://` through `CONNECT`.
/// - Keep-alive: connections are kept per origin and reused; a kept connection the server
///   closed meanwhile is replaced once, transparently.
/// - At most `maximumConnectionsPerOrigin` connections per origin; more requests wait.
/// - Each exchange runs blocking on a thread of its own, and every wait is a `poll` bounded by
///   the request's idle timeout and total deadline, so waiting costs no CPU. Cancelling the
///   calling task shuts the socket down and ends the exchange at once.
/// - Bodies with `Content-Length`, chunked, or up to the close; the request's size limit holds
///   while reading.
/// - Redirects (when the request follows them) are followed here for both schemes, at most
///   five, and every hop passes the request's `TargetPolicy`, which decides the address
///   connected to.
public final class SocketTransport: HTTPTransport {
  /// What the transport did so far: for tests and benchmarks.
  public struct Statistics: Sendable, Equatable {
    /// TCP connections opened.
    public var connectionsOpened = 0
    /// TLS handshakes completed, resumed ones included.
    public var tlsHandshakes = 0
    /// TLS handshakes that resumed an earlier session.
    public var tlsResumptions = 0
  }

  private let pool: ConnectionPool
  private let caFile: String?
  private let proxies: ProxySettings
  private let tlsContext = Mutex<TLSContext?>(nil)
  private let counters = Mutex(Statistics())

  /// - Parameters:
  ///   - maximumConnectionsPerOrigin: connections open at once to one origin.
  ///   - idleLifetime: how long an unused keep-alive connection is kept, in seconds.
  ///   - caFile: a PEM file of certificates trusted besides the system store (a private CA).
  ///   - proxies: the proxies to go through (`ProxySettings(environment:)`); none by default.
  public init(
    maximumConnectionsPerOrigin: Int = 8, idleLifetime: Double = 30, caFile: String? = nil,
    proxies: ProxySettings = ProxySettings()
  ) {
    pool = ConnectionPool(maximumPerOrigin: maximumConnectionsPerOrigin, idleLifetime: idleLifetime)
    self.caFile = caFile
    self.proxies = proxies
  }

  /// Checks that `caFile` can be read and holds certificates: nil when it does, else a message
  /// naming the file and the problem (for a command line to refuse at once).
  public static func problem(withCAFile caFile: String) -> String? {
    do throws(TLSSetupError) {
      _ = try TLSContext.client(caFile: caFile)
      return nil
    } catch {
      return error.message
    }
  }

  /// What the transport did so far.
  public var statistics: Statistics { counters.withLock { $0 } }

  /// The client TLS context, made on first use (reading the trust store once).
  private func clientContext() throws(TransportError) -> TLSContext {
    let made = tlsContext.withLock { stored -> Result<TLSContext, TLSSetupError> in
      if let stored { return .success(stored) }
      do throws(TLSSetupError) {
        let context = try TLSContext.client(caFile: caFile)
        stored = context
        return .success(context)
      } catch {
        return .failure(error)
      }
    }
    switch made {
    case .success(let context): return context
    case .failure(let error): throw .failed(error.message)
    }
  }

  /// Open and idle connections to the origin of `url` (`http://host:port`), for tests.
  func connectionCounts(_ url: String) -> (open: Int, idle: Int) {
    pool.counts(HTTPURL(url)?.origin ?? url)
  }

  /// Sends `request`, following redirects when it asks for that.
  public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
    var current = request
    for hop in 0...Self.maximumRedirects {
      var response = try await sendOnce(current)
      if hop > 0 { response.finalURL = current.url }
      guard current.followsRedirects, [301, 302, 303, 307, 308].contains(response.status),
        let location = response.headers["Location"]
      else { return response }
      guard let next = URLResolver.resolve(location, against: current.url) else {
        throw .invalidURL("the redirect target is not an http(s) URL")
      }
      if response.status == 303 || (response.status <= 302 && current.method == "POST") {
        current.method = "GET"
        current.body = []
        current.headers.remove("Content-Type")
      }
      if TargetPolicy.origin(of: next) != TargetPolicy.origin(of: current.url) {
        current.headers.remove("Authorization")
        current.headers.remove("Cookie")
      }
      current.url = next
    }
    throw .failed("more than \(Self.maximumRedirects) redirects")
  }

  static let maximumRedirects = 5

  /// One request, no redirects followed.
  private func sendOnce(_ request: TransportRequest) async throws(TransportError)
    -> TransportResponse
  {
    guard let url = HTTPURL(request.url) else {
      throw .invalidURL("not an absolute http(s) URL")
    }
    var addresses: [SocketAddress]?
    if let policy = request.targetPolicy, !policy.isExempt(request.url) {
      let text = request.url
      addresses = try await Self.blocking { () throws(TransportError) in try policy.check(text) }
    }
    let context = url.isSecure ? try clientContext() : nil
    let proxy = proxies.proxy(for: url)
    // Through a proxy, the proxy resolves the name: the checked addresses are not used.
    let checked = proxy == nil ? addresses : nil
    let key =
      (checked.map { "\(url.origin)@\($0[0].text)" } ?? url.origin)
      + (proxy.map { " via \($0.display)" } ?? "")
    let bytes = try Self.requestBytes(request, url: url, proxy: url.isSecure ? nil : proxy)
    let cancellation = Cancellation()
    let pool = pool
    let result = await withTaskCancellationHandler {
      () async -> Result<TransportResponse, TransportError> in
      do throws(TransportError) {
        let lease = try await pool.acquire(key)
        return .success(
          try await Self.blocking { () throws(TransportError) in
            try self.exchange(
              bytes, request: request, url: url, addresses: checked, proxy: proxy, key: key,
              lease: lease, context: context, cancellation: cancellation)
          })
      } catch {
        return .failure(error)
      }
    } onCancel: {
      cancellation.cancel()
    }
    return try result.get()
  }

  /// The blocking part: connect when needed, write, read; a reused connection that turns out
  /// closed by the server is replaced once.
  private func exchange(
    _ bytes: [UInt8], request: TransportRequest, url: HTTPURL, addresses: [SocketAddress]?,
    proxy: ProxySettings.Proxy?, key: String, lease: ConnectionPool.Lease, context: TLSContext?,
    cancellation: Cancellation
  ) throws(TransportError) -> TransportResponse {
    let deadline = Deadline(total: request.totalTimeout, idle: request.idleTimeout)
    let limits = ResponseLimits(
      maximumBodyBytes: request.maximumBodyBytes, truncates: request.truncatesLongBodies)
    var lease = lease
    while true {
      let connection: ClientConnection
      switch lease {
      case .reuse(let kept):
        connection = kept
      case .open:
        do throws(TransportError) {
          var targets = addresses ?? []
          if let proxy {
            do throws(TransportError) {
              targets = try SocketAddress.resolve(host: proxy.host, port: proxy.port)
              connection = try ClientConnection.open(
                to: targets, poolKey: key, deadline: deadline, cancellation: cancellation)
            } catch {
              guard case .cannotConnect(let reason) = error else { throw error }
              throw .cannotConnect("the proxy \(proxy.display): \(reason)")
            }
          } else {
            if targets.isEmpty {
              targets = try SocketAddress.resolve(host: url.host, port: url.port)
            }
            connection = try ClientConnection.open(
              to: targets, poolKey: key, deadline: deadline, cancellation: cancellation)
          }
          counters.withLock { $0.connectionsOpened += 1 }
        } catch {
          pool.releaseUnopened(key)
          throw error
        }
      }
      let reused = connection.exchanges > 0
      guard cancellation.attach(connection.fd) else {
        pool.release(connection, reusable: true)
        throw .cancelled
      }
      do throws(TransportError) {
        if let context, connection.tls == nil {
          if let proxy {
            try connection.tunnel(
              to: "\(url.hostForURL):\(url.port)", proxy: proxy, deadline: deadline,
              cancellation: cancellation)
          }
          try handshake(
            connection, context: context, host: url.host, key: key,
            deadline: deadline, cancellation: cancellation)
        }
        try connection.write(bytes, deadline: deadline, cancellation: cancellation)
        let (response, keepAlive) = try connection.readResponse(
          method: request.method, limits: limits, deadline: deadline, cancellation: cancellation)
        // With TLS 1.3 the session ticket comes after the handshake: now it has.
        connection.tls?.saveSessionForResumption()
        cancellation.detach()
        pool.release(connection, reusable: keepAlive)
        return response
      } catch {
        // Detached before the connection can be closed: see `ClientConnection.open`.
        withExtendedLifetime(connection) { cancellation.detach() }
        if reused, case .connectionLost(let reason) = error,
          reason == ClientConnection.staleConnection || reason == ClientConnection.resetWhileSending
        {
          // The server had closed the kept connection before our request reached it: its
          // slot goes to a fresh connection.
          lease = .open
          continue
        }
        pool.release(connection, reusable: false)
        throw error
      }
    }
  }

  /// Starts TLS on a new connection, resuming the session saved for `key` when there is one.
  private func handshake(
    _ connection: ClientConnection, context: TLSContext, host: String, key: String,
    deadline: Deadline, cancellation: Cancellation
  ) throws(TransportError) {
    let session: TLSSession
    do throws(TLSSetupError) {
      session = try TLSSession(client: context, host: host, sessionKey: key)
    } catch {
      throw .failed(error.message)
    }
    try connection.startTLS(session, deadline: deadline, cancellation: cancellation)
    let resumed = session.resumedSession
    counters.withLock {
      $0.tlsHandshakes += 1
      if resumed { $0.tlsResumptions += 1 }
    }
  }

  /// The request line, headers and body as sent.
  static func requestBytes(
    _ request: TransportRequest, url: HTTPURL, proxy: ProxySettings.Proxy? = nil
  ) throws(TransportError) -> [UInt8] {
    guard !request.method.isEmpty, request.method.allSatisfy({ $0.isLetter && $0.isASCII }) else {
      throw .invalidURL("the method \(request.method) cannot be sent")
    }
    // Through a proxy, a plain request names the whole URL (absolute form).
    let target = proxy == nil ? url.target : "http://\(url.hostHeader)\(url.target)"
    var head = "\(request.method) \(target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\n"
    if let authorization = proxy?.authorization {
      head += "Proxy-Authorization: \(authorization)\r\n"
    }
    let managed: Set<String> = [
      "host", "content-length", "connection", "transfer-encoding", "proxy-authorization",
    ]
    for field in request.headers where !managed.contains(field.name.lowercased()) {
      guard !(field.name + field.value).utf8.contains(where: { $0 == 13 || $0 == 10 }) else {
        throw .invalidURL("the header \(field.name) holds a line break")
      }
      head += "\(field.name): \(field.value)\r\n"
    }
    if !request.body.isEmpty || request.method == "POST" || request.method == "PUT" {
      head += "Content-Length: \(request.body.count)\r\n"
    }
    head += "\r\n"
    return Array(head.utf8) + request.body
  }

  /// Runs `work` on a thread that may block, and waits for it without holding one of the
  /// concurrency pool's threads. A serial queue of its own gets a thread even when others
  /// are blocked.
  private static func blocking<T: Sendable>(
    _ work: @escaping @Sendable () throws(TransportError) -> T
  ) async throws(TransportError) -> T {
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<T, TransportError>, Never>) in
      DispatchQueue(label: "susi.http").async {
        do throws(TransportError) {
          continuation.resume(returning: .success(try work()))
        } catch {
          continuation.resume(returning: .failure(error))
        }
      }
    }
    return try result.get()
  }
}
