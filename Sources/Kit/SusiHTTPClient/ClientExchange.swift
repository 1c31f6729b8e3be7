import CEpoll
import SusiHTTPTypes
import SusiTLS

#if canImport(Glibc)
  import Glibc
#endif

/// One request on its way, as a state machine driven by the loop thread: connect, open a proxy
/// tunnel, run the TLS handshake, send the request, parse the reply with
/// `HTTPResponseParser`. Each step does what the socket allows without blocking and then
/// waits for the next event or its deadline.
final class ClientExchange {
  enum Phase {
    /// Waiting for a connection slot of its origin.
    case queued
    /// Looking the host up (on another thread).
    case resolving
    /// A non-blocking connect to `addresses[index]` is under way.
    case connecting(addresses: [SocketAddress], index: Int)
    /// A `CONNECT` to the proxy was sent (or is being sent); its reply is parsed.
    case tunnel(HTTPResponseParser, HTTPResponseParser.Response?)
    /// The TLS handshake runs.
    case handshake(TLSSession)
    /// The request goes out and the reply is parsed.
    case response(HTTPResponseParser, HTTPResponseParser.Response?)
    case finished
  }

  /// What the exchange was asked to do.
  struct Order {
    let request: [UInt8]
    let method: HTTPMethod
    /// Whether the request carries a body.
    let hasBody: Bool
    let url: HTTPURL
    let key: String
    /// Checked addresses to connect to (nil: resolve the host, or the proxy).
    let addresses: [SocketAddress]?
    let proxy: ProxySettings.Proxy?
    let context: TLSContext?
    let limits: HTTPResponseLimits
    let idleTimeout: Double
    let totalTimeout: Double
    /// Monotonic seconds: the end of the whole `send` (queueing and redirects included).
    var deadline = Double.infinity
  }

  let id: Int
  let order: Order
  let finish: (Result<TransportResponse, TransportError>) -> Void
  var phase = Phase.queued
  var connection: ClientConnection?
  /// Where this request ends among the bytes queued on `connection` (`bytesQueued`).
  var requestEnd = 0
  /// Sent again after the connection it was pipelined on ended unanswered: never pipelined
  /// again, so it is sent at most twice.
  var resent = false
  /// Its caller already has an error (cancelled, timed out) while its request was pipelined on
  /// the wire: its reply still comes, and is read and thrown away.
  var abandoned = false
  /// The socket that is connecting (before `connection` exists).
  var connectingFD: Int32 = -1
  /// Whether `connection` carried an earlier reply.
  var reused = false
  /// Monotonic seconds: the whole exchange's end, and the end of the current idle wait.
  var end = Double.infinity
  var idleEnd = Double.infinity

  init(
    id: Int, order: Order, finish: @escaping (Result<TransportResponse, TransportError>) -> Void
  ) {
    self.id = id
    self.order = order
    self.finish = finish
  }

  /// Starts the clocks: called when the exchange gets its connection slot.
  func startClock(now: Double) {
    let total = order.totalTimeout.isFinite ? max(0, order.totalTimeout) : 3600
    end = min(now + total, order.deadline)
    touch(now: now)
  }

  /// Progress happened: the idle wait starts over.
  func touch(now: Double) {
    idleEnd = now + (order.idleTimeout.isFinite ? max(0.001, order.idleTimeout) : 3600)
  }

  var deadline: Double {
    switch phase {
    case .queued: order.deadline
    case .finished: .infinity
    default: min(end, idleEnd)
    }
  }

  /// The socket the loop watches for this exchange, if any.
  var watchedFD: Int32? {
    if connectingFD >= 0 { return connectingFD }
    return connection?.fd
  }

  /// The error when the deadline passes in the current phase.
  var timeoutError: TransportError {
    switch phase {
    case .resolving, .connecting:
      return .cannotConnect("the server did not accept the connection in time")
    case .tunnel:
      return .cannotConnect(
        "the proxy \(order.proxy?.display ?? "") did not open the tunnel in time")
    case .handshake: return .cannotConnect("the server did not finish the TLS handshake in time")
    default: return .timedOut
    }
  }

  /// The events the socket is watched for in the current phase.
  var interest: UInt32 {
    var events: UInt32 = 0
    switch phase {
    case .connecting: events |= EPOLLOUT.rawValue
    case .tunnel, .handshake, .response: events |= EPOLLIN.rawValue
    default: break
    }
    if connection?.hasUnsent == true { events |= EPOLLOUT.rawValue }
    return events
  }

  // MARK: - Socket I/O without blocking

  enum Received {
    case bytes(Int)
    case wouldBlock
    case end
  }

  /// Reads what the socket has into `buffer`.
  func receive(into buffer: UnsafeMutableRawBufferPointer) throws(TransportError) -> Received {
    guard let connection else { return .end }
    while true {
      let n = recv(connection.fd, buffer.baseAddress, buffer.count, 0)
      if n > 0 { return .bytes(n) }
      if n == 0 { return .end }
      if errno == EINTR { continue }
      if errno == EAGAIN { return .wouldBlock }
      throw .connectionLost("the connection was reset")
    }
  }

  /// Queues bytes for the socket.
  func queue(_ bytes: [UInt8]) {
    connection?.queue(bytes)
  }

  /// Sends what it can of the connection's queued bytes; false when the socket is full.
  func flush() throws(TransportError) -> Bool {
    try connection?.flush() ?? true
  }

  /// Whether the request may be pipelined: idempotent, without a body, as the server answers
  /// such requests in order and sending one twice does no harm; over plain `http://` only (over
  /// TLS it showed no gain in the benchmarks).
  var isPipelinable: Bool {
    (order.method == .get || order.method == .head) && !resent && order.proxy == nil
      && order.context == nil && !order.hasBody
  }

  /// Feeds the reply parser from the connection (decrypting over TLS); false when the socket
  /// has nothing more for now.
  func feed(_ parser: inout HTTPResponseParser, buffer: UnsafeMutableRawBufferPointer)
    throws(TransportError) -> Bool
  {
    guard let tls = connection?.tls else {
      switch try receive(into: buffer) {
      case .bytes(let n): parser.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
      case .end: parser.receiveEnd()
      case .wouldBlock: return false
      }
      return true
    }
    while true {
      let result: TLSSession.ReadResult
      do throws(TLSFailure) {
        result = try tls.read(into: buffer)
      } catch {
        throw .connectionLost("the TLS stream broke: \(error.detail)")
      }
      // Whatever TLS wants to say back (a key update) goes out too.
      if tls.pendingOutput > 0 { queue(tls.takeOutput()) }
      switch result {
      case .bytes(let n):
        parser.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        return true
      case .closed:
        parser.receiveEnd()
        return true
      case .needsInput:
        switch try receive(into: buffer) {
        case .bytes(let n):
          do throws(TLSFailure) {
            try tls.received(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
          } catch {
            throw .tls(error)
          }
        case .end: tls.receivedEnd()
        case .wouldBlock: return false
        }
      }
    }
  }
}
