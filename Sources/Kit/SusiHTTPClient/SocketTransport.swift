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
    /// Reads of a plain connection that found no bytes of the reply yet (each a wasted system
    /// call: a reply is read once the loop says it arrived).
    public var emptyReads = 0
    /// Requests pipelined onto a connection behind another one's reply.
    public var requestsPipelined = 0
  }

  private let maximumConnectionsPerOrigin: Int
  private let idleLifetime: Double
  /// The event loop and the connections on it, made on first use.
  private let running = Mutex<ClientEngine?>(nil)
  private let nextExchange = Atomic(0)
  private let caFile: String?
  private let proxies: ProxySettings
  private let tlsContext = Mutex<TLSContext?>(nil)
  private let counters = StatisticsCounter()

  /// - Parameters:
  ///   - maximumConnectionsPerOrigin: connections open at once to one origin.
  ///   - idleLifetime: how long an unused keep-alive connection is kept, in seconds.
  ///   - caFile: a PEM file of certificates trusted besides the system store (a private CA).
  ///   - proxies: the proxies to go through (`ProxySettings(environment:)`); none by default.
  public init(
    maximumConnectionsPerOrigin: Int = 8, idleLifetime: Double = 30, caFile: String? = nil,
    proxies: ProxySettings = ProxySettings()
  ) {
    self.maximumConnectionsPerOrigin = maximumConnectionsPerOrigin
    self.idleLifetime = idleLifetime
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
  public var statistics: Statistics { counters.value.withLock { $0 } }

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

  deinit { running.withLock { $0?.loop.stop() } }

  /// The engine and its loop thread, started by the first request.
  private func engine() throws(TransportError) -> ClientEngine {
    let made = running.withLock { running -> Result<ClientEngine, TransportError> in
      if let running { return .success(running) }
      do throws(TransportError) {
        let engine = ClientEngine(
          loop: try ClientLoop(), maximumPerOrigin: maximumConnectionsPerOrigin,
          idleLifetime: idleLifetime, statistics: counters)
        running = engine
        return .success(engine)
      } catch {
        return .failure(error)
      }
    }
    return try made.get()
  }

  /// Open and idle connections to the origin of `url` (`http://host:port`), for tests.
  func connectionCounts(_ url: String) async -> (open: Int, idle: Int) {
    guard let engine = running.withLock({ $0 }) else { return (0, 0) }
    return await engine.counts(HTTPURL(url)?.origin ?? url)
  }

  /// Requests waiting for a connection to the origin of `url`, for tests.
  func waitingCount(_ url: String) async -> Int {
    guard let engine = running.withLock({ $0 }) else { return 0 }
    return await engine.waitingCount(HTTPURL(url)?.origin ?? url)
  }

  /// CPU time the client's event loop thread used so far, in seconds: all the waiting and
  /// the I/O of every request happen there.
  public var loopCPUSeconds: Double { running.withLock { $0?.loop.cpuSeconds ?? 0 } }

  /// Sends `request`, following redirects when it asks for that.
  public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
    var current = request
    // One deadline for the whole call: waiting for a connection and every redirect count.
    let total = request.totalTimeout.isFinite ? max(0, request.totalTimeout) : 3600
    let deadline = ClientLoop.now() + total
    for hop in 0...Self.maximumRedirects {
      var response = try await sendOnce(current, deadline: deadline)
      if hop > 0 { response.finalURL = current.url }
      guard current.followsRedirects, [301, 302, 303, 307, 308].contains(response.status),
        let location = response.headers["Location"]
      else { return response }
      guard let next = URLResolver.resolve(location, against: current.url) else {
        throw .invalidURL("the redirect target is not an http(s) URL")
      }
      if response.status == 303 || (response.status <= 302 && current.method == .post) {
        current.method = .get
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

  /// The client's event loop: a task that runs there reads its reply and goes on in the same
  /// turn of the loop. Nil when the loop cannot be started.
  public var preferredTaskExecutor: (any TaskExecutor)? { try? engine().loop }

  /// True unless the target policy must look the host up first (that lookup runs before the
  /// deadline is watched).
  public func keepsTotalTimeout(of request: TransportRequest) -> Bool {
    request.targetPolicy.map { $0.isExempt(request.url) } ?? true
  }

  /// One request, no redirects followed.
  private func sendOnce(_ request: TransportRequest, deadline: Double) async throws(TransportError)
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
    let order = ClientExchange.Order(
      request: try Self.requestBytes(request, url: url, proxy: url.isSecure ? nil : proxy),
      method: request.method, hasBody: !request.body.isEmpty, url: url, key: key,
      addresses: checked, proxy: proxy,
      context: context,
      limits: HTTPResponseLimits(
        maximumBodyBytes: request.maximumBodyBytes,
        truncatesLongBodies: request.truncatesLongBodies),
      idleTimeout: request.idleTimeout, totalTimeout: request.totalTimeout, deadline: deadline)
    let engine = try engine()
    let id = nextExchange.add(1, ordering: .relaxed).newValue
    let cancellation = CancellationFlag()
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<TransportResponse, TransportError>, Never>) in
        engine.submit(id: id, order, cancellation: cancellation) {
          continuation.resume(returning: $0)
        }
      }
    } onCancel: {
      engine.cancel(id: id, cancellation)
    }
    return try result.get()
  }

  /// Whether the transport writes the header `name` itself (a request's own is left out).
  private static func isManagedHeader(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
    HTTPSyntax.equalsIgnoringCase(name, "host")
      || HTTPSyntax.equalsIgnoringCase(name, "content-length")
      || HTTPSyntax.equalsIgnoringCase(name, "connection")
      || HTTPSyntax.equalsIgnoringCase(name, "transfer-encoding")
      || HTTPSyntax.equalsIgnoringCase(name, "proxy-authorization")
  }

  /// The request line, headers and body as sent, built as bytes (no intermediate strings).
  static func requestBytes(
    _ request: TransportRequest, url: HTTPURL, proxy: ProxySettings.Proxy? = nil
  ) throws(TransportError) -> [UInt8] {
    let method = request.method
    guard method.isValidToken else {
      throw .invalidURL("the method \(request.method) cannot be sent")
    }
    var head: [UInt8] = []
    head.reserveCapacity(256 + url.target.utf8.count + request.body.count)
    head.append(utf8Of: method.text)
    head.append(UInt8(ascii: " "))
    // Through a proxy, a plain request names the whole URL (absolute form).
    if proxy != nil {
      head.append(literal: "http://")
      url.appendHostHeader(to: &head)
    }
    head.append(utf8Of: url.target)
    head.append(literal: " HTTP/1.1\r\nHost: ")
    url.appendHostHeader(to: &head)
    head.append(literal: "\r\n")
    if let authorization = proxy?.authorization {
      head.append(literal: "Proxy-Authorization: ")
      head.append(utf8Of: authorization)
      head.append(literal: "\r\n")
    }
    for field in request.headers {
      let fieldStart = head.count
      head.append(utf8Of: field.name)
      let nameEnd = head.count
      let managed = head.withUnsafeBufferPointer {
        Self.isManagedHeader(UnsafeBufferPointer(rebasing: $0[fieldStart..<nameEnd]))
      }
      if managed {
        head.removeLast(nameEnd - fieldStart)
        continue
      }
      head.append(literal: ": ")
      head.append(utf8Of: field.value)
      let holdsBreak = head.withUnsafeBufferPointer {
        $0[fieldStart...].contains { $0 == 13 || $0 == 10 }
      }
      guard !holdsBreak else {
        throw .invalidURL("the header \(field.name) holds a line break")
      }
      head.append(literal: "\r\n")
    }
    if !request.body.isEmpty || method.expectsBody {
      head.append(literal: "Content-Length: ")
      head.append(decimal: request.body.count)
      head.append(literal: "\r\n")
    }
    head.append(literal: "\r\n")
    head.append(contentsOf: request.body)
    return head
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

/// The transport's statistics, shared with its engine.
final class StatisticsCounter: Sendable {
  let value = Mutex(SocketTransport.Statistics())
}
