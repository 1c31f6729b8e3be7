import CEpoll
import Dispatch
import SusiHTTPTypes
import SusiTLS
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The client's connections and the requests on them, all on one `ClientLoop` thread: keeps
/// idle keep-alive connections per origin (pool key), bounds how many connections each origin
/// has open at once (a request beyond the bound waits for one to come back, or is pipelined
/// onto a busy connection: `mayPipeline`), and drives each `ClientExchange` as its sockets
/// become ready.
///
/// Every method but `submit`, `cancel` and `counts` runs on the loop thread; those three hop
/// onto it. `@unchecked Sendable` for that reason.
final class ClientEngine: @unchecked Sendable {
  private struct Origin {
    var idle: [ClientConnection] = []
    /// Connections open or being opened, idle ones included.
    var open = 0
    var waiters: [ClientExchange] = []
    /// Open connections that answered as persistent HTTP/1.1: the ones requests may be
    /// pipelined onto.
    var persistent: [ClientConnection] = []

    /// Whether a new request would wait: every connection is open and none is idle.
    func isFull(maximum: Int) -> Bool { open >= maximum && idle.isEmpty }
  }

  /// Requests in flight at most on one connection, the one being read included. Small: a slow
  /// reply holds up every reply pipelined behind it (head-of-line blocking), and a few already
  /// let one read and one write carry several replies and requests.
  static let pipelineDepth = 4

  let loop: ClientLoop
  let maximumPerOrigin: Int
  let idleLifetime: Double
  private let statistics: StatisticsCounter
  private var origins: [String: Origin] = [:]
  private var exchanges: [Int: ClientExchange] = [:]
  /// Connections with requests pipelined onto them in this turn of the loop, not sent yet: the
  /// requests a turn's work submits go out together, in one write, at its end.
  private var unsent: [ClientConnection] = []
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

  init(
    loop: ClientLoop, maximumPerOrigin: Int, idleLifetime: Double,
    statistics: StatisticsCounter
  ) {
    self.loop = loop
    self.maximumPerOrigin = max(1, maximumPerOrigin)
    self.idleLifetime = idleLifetime
    self.statistics = statistics
    // Weak: the loop thread may make one more turn after the transport (and this engine) is gone.
    loop.execute { [self] in loop.turn = { [weak self] in self?.endTurn() } }
  }

  deinit { buffer.deallocate() }

  // MARK: - From any thread

  /// Starts `order` as exchange `id`; `finish` is called once, on the loop thread. A
  /// `cancellation` set before the exchange starts ends it at once.
  func submit(
    id: Int, _ order: ClientExchange.Order, cancellation: CancellationFlag,
    finish: @escaping @Sendable (Result<TransportResponse, TransportError>) -> Void
  ) {
    let begin = { @Sendable [self] in
      if cancellation.isSet { return finish(.failure(.cancelled)) }
      start(ClientExchange(id: id, order: order, finish: finish))
    }
    // On the loop thread already (a task that prefers the loop): the request goes out now.
    if loop.isLoopThread { return begin() }
    if !loop.execute(begin) { finish(.failure(.cancelled)) }
  }

  /// Ends exchange `id` with `.cancelled` (nothing when it already finished); `cancellation`
  /// is set first, so an exchange not started yet ends as it starts.
  func cancel(id: Int, _ cancellation: CancellationFlag) {
    cancellation.set()
    loop.execute { [self] in
      guard let exchange = exchanges[id], !exchange.abandoned else { return }
      if case .queued = exchange.phase {
        origins[exchange.order.key]?.waiters.removeAll { $0 === exchange }
        exchanges[id] = nil
        exchange.phase = .finished
        exchange.finish(.failure(.cancelled))
        return
      }
      fail(exchange, .cancelled)
    }
  }

  /// Open and idle connections for `key`, for tests.
  func counts(_ key: String) async -> (open: Int, idle: Int) {
    await withCheckedContinuation { continuation in
      let accepted = loop.execute { [self] in
        let origin = origins[key] ?? Origin()
        continuation.resume(returning: (origin.open, origin.idle.count))
      }
      if !accepted { continuation.resume(returning: (0, 0)) }
    }
  }

  /// Requests waiting for a connection to `key`, for tests.
  func waitingCount(_ key: String) async -> Int {
    await withCheckedContinuation { continuation in
      let accepted = loop.execute { [self] in
        continuation.resume(returning: origins[key]?.waiters.count ?? 0)
      }
      if !accepted { continuation.resume(returning: 0) }
    }
  }

  // MARK: - The pool

  private func start(_ exchange: ClientExchange) {
    exchanges[exchange.id] = exchange
    let key = exchange.order.key
    let now = ClientLoop.now()
    // Changed in place: a copy taken out of the dictionary would copy its idle list to pop one.
    switch claim(for: exchange, in: &origins[key, default: Origin()], now: now) {
    case .kept(let connection): proceed(exchange, on: connection, now: now)
    case .open: open(exchange, now: now)
    case .pipelined(let connection):
      pipeline(exchange, onto: connection, now: now)
      if !unsent.contains(where: { $0 === connection }) { unsent.append(connection) }
    case .waiting: break
    }
  }

  private enum Claim {
    case kept(ClientConnection)
    case open
    case pipelined(onto: ClientConnection)
    case waiting
  }

  /// An idle connection of `origin` still fit for `exchange` (closing stale ones), a new one
  /// when one may be opened, a busy one to pipeline it onto; otherwise `exchange` waits in
  /// `origin`.
  private func claim(for exchange: ClientExchange, in origin: inout Origin, now: Double) -> Claim {
    while let connection = origin.idle.popLast() {
      // An idle connection is watched for input (see `release`): one the server closed has
      // left the pool already, unless that close came since the loop last looked, which the
      // stale-connection retry covers. A TLS one is still asked, for records sent meanwhile.
      if now - connection.idleSince < idleLifetime
        && (connection.tls == nil || connection.isUsableIdle)
      {
        return .kept(connection)
      }
      retire(connection, from: &origin)
      origin.open -= 1
    }
    if origin.open < maximumPerOrigin {
      origin.open += 1
      return .open
    }
    // The busy connection with the fewest requests in flight.
    var target: ClientConnection?
    for connection in origin.persistent
    where mayPipeline(exchange, onto: connection, originIsFull: true)
      && connection.inFlight.count < target?.inFlight.count ?? .max
    {
      target = connection
    }
    if let target { return .pipelined(onto: target) }
    origin.waiters.append(exchange)
    return .waiting
  }

  /// The one place that decides whether `exchange` may be pipelined onto `connection`: an
  /// idempotent request without a body (not one sent again already) that would otherwise wait,
  /// onto a connection that answered as persistent HTTP/1.1, carries only such requests, and
  /// has fewer than `pipelineDepth` in flight.
  private func mayPipeline(
    _ exchange: ClientExchange, onto connection: ClientConnection, originIsFull: Bool
  ) -> Bool {
    guard originIsFull, exchange.isPipelinable, !exchange.resent, connection.isPersistent,
      connection.inFlight.count < Self.pipelineDepth, let head = connection.inFlight.first
    else { return false }
    return head.isPipelinable
  }

  /// Sends `exchange` on `connection` behind the exchanges already there; its bytes go out
  /// with theirs at the next flush.
  private func pipeline(_ exchange: ClientExchange, onto connection: ClientConnection, now: Double)
  {
    exchange.startClock(now: now)
    exchange.connection = connection
    exchange.reused = true
    connection.inFlight.append(exchange)
    statistics.value.withLock { $0.requestsPipelined += 1 }
    do throws(TransportError) {
      try startRequest(exchange)
    } catch {
      return fail(exchange, error)
    }
    // Its idle wait starts when its reply is the one read (`promote`).
    exchange.idleEnd = .infinity
  }

  /// Pipelines the waiting requests of its origin onto `connection` while it may take them.
  private func pipelineWaiters(onto connection: ClientConnection, now: Double) {
    guard connection.isPersistent else { return }
    let key = connection.poolKey
    while let waiter = origins[key]?.waiters.first,
      mayPipeline(
        waiter, onto: connection,
        originIsFull: origins[key]?.isFull(maximum: maximumPerOrigin) ?? false)
    {
      origins[key]?.waiters.removeFirst()
      pipeline(waiter, onto: connection, now: now)
    }
  }

  /// The exchange after the one just answered on a connection becomes the one read; the
  /// bytes after that reply are the start of its own.
  private func promote(
    _ next: ClientExchange, receiving remainder: ArraySlice<UInt8>, now: Double
  ) {
    next.touch(now: now)
    if next.abandoned {
      // Watched again, so that a reply that never comes still ends the connection in time.
      next.end = next.idleEnd
      exchanges[next.id] = next
    }
    guard !remainder.isEmpty, case .response(var parser, let partial) = next.phase else { return }
    parser.receive(remainder)
    next.phase = .response(parser, partial)
  }

  /// The requests pipelined on a connection that ends before answering them go back to the
  /// front of the waiters: they are idempotent and the server did not answer them. They are
  /// sent again once, not pipelined; abandoned ones are dropped.
  private func requeueUnanswered(on connection: ClientConnection) {
    guard !connection.inFlight.isEmpty else { return }
    let unanswered = connection.inFlight.filter { !$0.abandoned }
    connection.inFlight.removeAll()
    for exchange in unanswered {
      exchange.connection = nil
      exchange.phase = .queued
      exchange.resent = true
    }
    origins[connection.poolKey, default: Origin()].waiters.insert(contentsOf: unanswered, at: 0)
  }

  /// Stops watching a connection that ends; it is no longer pipelined onto. Its slot is the
  /// caller's to count.
  private func retire(_ connection: ClientConnection, from origin: inout Origin) {
    loop.unwatch(connection.fd)
    if connection.isPersistent { origin.persistent.removeAll { $0 === connection } }
  }

  /// Gives a connection back: kept for reuse when `reusable`, closed otherwise. A waiting
  /// exchange gets it (or the freed slot) first.
  private func release(_ connection: ClientConnection, reusable: Bool) {
    let key = connection.poolKey
    if !reusable { retire(connection, from: &origins[key, default: Origin()]) }
    connection.idleSince = ClientLoop.now()
    if !reusable { connection.tls = nil }
    // Taken in place: a copy of the origin would copy its waiters to take one.
    if let waiter = origins[key]?.waiters.first {
      origins[key]?.waiters.removeFirst()
      if reusable {
        proceed(waiter, on: connection, now: ClientLoop.now())
      } else {
        open(waiter, now: ClientLoop.now())
      }
      return
    }
    if reusable {
      origins[key, default: Origin()].idle.append(connection)
      // Kept watched for input while idle: the server closing it (or sending anything) takes it
      // out of the pool at once, and the next exchange on it needs no new registration.
      loop.change(connection.fd, events: EPOLLIN.rawValue)
      // Weak: the pool may be gone by the time the loop sees the server close an idle
      // connection (the transport released at exit, its loop not stopped yet); the connection
      // keeps the handler, so it is weak there too.
      let handler =
        connection.idleHandler
        ?? ClientLoop.SocketHandler { [weak self, weak connection] _ in
          guard let self, let connection else { return }
          idleConnectionStirred(connection)
        }
      connection.idleHandler = handler
      loop.rewatch(connection.fd, handler: handler)
    } else {
      origins[key, default: Origin()].open -= 1
    }
  }

  /// An idle connection became readable: a TLS server's own records (session tickets) keep it;
  /// a close, an error or stray bytes take it out of the pool.
  private func idleConnectionStirred(_ connection: ClientConnection) {
    if connection.tls != nil && connection.isUsableIdle { return }
    let key = connection.poolKey
    guard var origin = origins[key],
      let index = origin.idle.firstIndex(where: { $0 === connection })
    else { return loop.unwatch(connection.fd) }
    retire(connection, from: &origin)
    origin.idle.remove(at: index)
    origin.open -= 1
    origins[key] = origin
  }

  /// Returns the slot of a connection that never opened.
  private func releaseSlot(_ key: String) {
    // Taken in place: a copy of the origin would copy its waiters to take one.
    if let waiter = origins[key]?.waiters.first {
      origins[key]?.waiters.removeFirst()
      open(waiter, now: ClientLoop.now())
      return
    }
    origins[key, default: Origin()].open -= 1
  }

  // MARK: - Driving an exchange

  /// Opens a new connection for `exchange` (its slot is counted).
  private func open(_ exchange: ClientExchange, now: Double) {
    exchange.startClock(now: now)
    let order = exchange.order
    if let addresses = order.addresses, order.proxy == nil {
      connect(exchange, to: addresses, index: 0)
      return
    }
    exchange.phase = .resolving
    let host = order.proxy?.host ?? order.url.host
    let port = order.proxy?.port ?? order.url.port
    let id = exchange.id
    // Name lookups block: they run elsewhere and come back to the loop.
    DispatchQueue.global().async { [self] in
      let result = Result { () throws(TransportError) in
        try SocketAddress.resolve(host: host, port: port)
      }
      loop.execute { [self] in
        guard let exchange = exchanges[id], case .resolving = exchange.phase else { return }
        switch result {
        case .success(let addresses): connect(exchange, to: addresses, index: 0)
        case .failure(let error): fail(exchange, error)
        }
      }
    }
  }

  private func connect(_ exchange: ClientExchange, to addresses: [SocketAddress], index: Int) {
    guard index < addresses.count else {
      return fail(exchange, .cannotConnect("the connection was refused"))
    }
    guard let (fd, isConnected) = ClientConnection.startConnecting(to: addresses[index]) else {
      return fail(exchange, .cannotConnect("no socket could be opened"))
    }
    guard fd >= 0 else { return connect(exchange, to: addresses, index: index + 1) }
    exchange.connectingFD = fd
    exchange.phase = .connecting(addresses: addresses, index: index)
    if isConnected { return connected(exchange) }
    loop.watch(fd, events: EPOLLOUT.rawValue) { [unowned self, unowned exchange] _ in
      guard case .connecting(let addresses, let index) = exchange.phase else { return }
      if ClientConnection.connectError(fd) == 0 { return connected(exchange) }
      loop.unwatch(fd)
      close(fd)
      exchange.connectingFD = -1
      connect(exchange, to: addresses, index: index + 1)
    }
  }

  private func connected(_ exchange: ClientExchange) {
    let fd = exchange.connectingFD
    exchange.connectingFD = -1
    loop.unwatch(fd)
    statistics.value.withLock { $0.connectionsOpened += 1 }
    proceed(
      exchange, on: ClientConnection(fd: fd, poolKey: exchange.order.key), now: ClientLoop.now())
  }

  /// Runs `exchange` on `connection` (new or reused): a tunnel and a handshake when TLS is not
  /// set up yet, then the request.
  private func proceed(_ exchange: ClientExchange, on connection: ClientConnection, now: Double) {
    if case .queued = exchange.phase { exchange.startClock(now: now) }
    exchange.touch(now: now)
    exchange.connection = connection
    exchange.reused = connection.exchanges > 0
    connection.inFlight.append(exchange)
    // Weak, as for the idle handler; the connection keeps it.
    let handler =
      connection.busyHandler
      ?? ClientLoop.SocketHandler { [weak self, weak connection] _ in
        guard let self, let head = connection?.inFlight.first else { return }
        advance(head)
      }
    connection.busyHandler = handler
    loop.rewatch(connection.fd, handler: handler)
    let order = exchange.order
    if let context = order.context, connection.tls == nil {
      if let proxy = order.proxy {
        let authority = "\(order.url.hostForURL):\(order.url.port)"
        var head = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let authorization = proxy.authorization {
          head += "Proxy-Authorization: \(authorization)\r\n"
        }
        head += "\r\n"
        exchange.queue(Array(head.utf8))
        exchange.phase = .tunnel(
          HTTPResponseParser(
            requestMethod: .connect,
            limits: HTTPResponseLimits(maximumBodyBytes: 64 * 1024, truncatesLongBodies: true)),
          nil)
        return advance(exchange)
      }
      do throws(TransportError) {
        try startHandshake(exchange, context: context)
      } catch {
        return fail(exchange, error)
      }
      return advance(exchange)
    }
    do throws(TransportError) {
      try startRequest(exchange)
    } catch {
      return fail(exchange, error)
    }
    pipelineWaiters(onto: connection, now: now)
    // The reply cannot be there yet: the socket is read once the loop says it is readable.
    advance(exchange, justSent: true)
  }

  private func startHandshake(_ exchange: ClientExchange, context: TLSContext)
    throws(TransportError)
  {
    do throws(TLSSetupError) {
      let session = try TLSSession(
        client: context, host: exchange.order.url.host, sessionKey: exchange.order.key)
      exchange.connection?.tls = session
      exchange.phase = .handshake(session)
    } catch {
      throw .failed(error.message)
    }
  }

  private func startRequest(_ exchange: ClientExchange) throws(TransportError) {
    let order = exchange.order
    if let tls = exchange.connection?.tls {
      do throws(TLSFailure) {
        try tls.write(order.request)
      } catch {
        throw .connectionLost("TLS failed while sending: \(error.detail)")
      }
      exchange.queue(tls.takeOutput())
    } else {
      exchange.queue(order.request)
    }
    exchange.requestEnd = exchange.connection?.bytesQueued ?? 0
    exchange.phase = .response(
      HTTPResponseParser(requestMethod: order.method, limits: order.limits), nil)
  }

  /// Does all the exchange can do now, then waits for the socket.
  ///
  /// - Parameter justSent: the request was just handed to the socket: on a plain connection
  ///   nothing of its reply can have arrived, so no read is tried before the socket is readable.
  private func advance(_ exchange: ClientExchange, justSent: Bool = false) {
    do throws(TransportError) {
      while true {
        let sent = exchange.connection?.bytesSent ?? 0
        _ = try exchange.flush()
        if exchange.connection?.bytesSent ?? 0 > sent { exchange.touch(now: ClientLoop.now()) }
        switch exchange.phase {
        case .tunnel(var parser, var partial):
          if let reply = try Self.parsed(&parser, &partial, exchange) {
            try openedTunnel(exchange, reply: reply, parser: parser)
            continue
          }
          let fed = try exchange.feed(&parser, buffer: buffer)
          exchange.phase = .tunnel(parser, partial)
          guard fed else { return wait(exchange) }
          exchange.touch(now: ClientLoop.now())

        case .handshake(let session):
          let progress: TLSSession.Progress
          do throws(TLSFailure) {
            progress = try session.handshake()
          } catch {
            // The alert that tells the server why, when the socket still takes it.
            exchange.queue(session.takeOutput())
            _ = try? exchange.flush()
            throw .tls(error)
          }
          exchange.queue(session.takeOutput())
          if progress == .complete {
            let resumed = session.resumedSession
            statistics.value.withLock {
              $0.tlsHandshakes += 1
              if resumed { $0.tlsResumptions += 1 }
            }
            try startRequest(exchange)
            continue
          }
          // Read even when the socket takes no more for now: waiting only to write while the
          // peer's bytes are readable would wake the loop again and again.
          _ = try exchange.flush()
          switch try exchange.receive(into: buffer) {
          case .bytes(let n):
            exchange.touch(now: ClientLoop.now())
            do throws(TLSFailure) {
              try session.received(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            } catch {
              throw .tls(error)
            }
          case .end: session.receivedEnd()
          case .wouldBlock: return wait(exchange)
          }

        case .response(var parser, var partial):
          if let reply = try Self.parsed(&parser, &partial, exchange) {
            return complete(exchange, reply: reply, remainder: parser.remainder)
          }
          if justSent && exchange.connection?.tls == nil && !parser.hasReceivedBytes {
            return wait(exchange)
          }
          let fed = try exchange.feed(&parser, buffer: buffer)
          exchange.phase = .response(parser, partial)
          guard fed else {
            if exchange.connection?.tls == nil { statistics.value.withLock { $0.emptyReads += 1 } }
            return wait(exchange)
          }
          exchange.touch(now: ClientLoop.now())

        case .queued, .resolving, .connecting, .finished:
          return
        }
      }
    } catch {
      fail(exchange, error)
    }
  }

  /// The complete reply once parsed, with parse errors as transport errors.
  private static func parsed(
    _ parser: inout HTTPResponseParser, _ partial: inout HTTPResponseParser.Response?,
    _ exchange: ClientExchange
  ) throws(TransportError) -> HTTPResponseParser.Response? {
    do throws(HTTPResponseParseError) {
      return try parser.nextResponse(into: &partial)
    } catch {
      switch error {
      case .bodyTooLarge(let limit): throw .tooLarge(limit: limit)
      case .headTooLarge(let limit):
        throw .connectionLost("the reply's header is larger than \(limit) bytes")
      case .tooManyHeaders(let limit):
        throw .connectionLost("the reply has more than \(limit) header fields")
      case .malformed(let reason):
        throw .connectionLost("the server sent a malformed reply: \(reason)")
      case .endedEarly:
        if !parser.hasReceivedBytes {
          // On a reused connection, a close before the first byte means the server had
          // dropped the idle connection: the request never reached it.
          throw .connectionLost(
            exchange.reused
              ? ClientConnection.staleConnection
              : "the server closed the connection without a complete reply")
        }
        throw .connectionLost("the connection closed in the middle of the reply")
      }
    }
  }

  private func openedTunnel(
    _ exchange: ClientExchange, reply: HTTPResponseParser.Response, parser: HTTPResponseParser
  ) throws(TransportError) {
    let order = exchange.order
    let proxy = order.proxy!
    let authority = "\(order.url.hostForURL):\(order.url.port)"
    switch reply.head.status {
    case 200...299:
      guard parser.remainder.isEmpty else {
        throw .cannotConnect("the proxy \(proxy.display) sent bytes before the tunnel opened")
      }
    case 407:
      throw .cannotConnect(
        "the proxy \(proxy.display) asks for credentials (HTTP 407); give them in the proxy URL,"
          + " http://USER:PASSWORD@\(proxy.display)")
    default:
      throw .cannotConnect(
        "the proxy \(proxy.display) refused a tunnel to \(authority) (HTTP \(reply.head.status));"
          + " set NO_PROXY to reach it directly, or use another proxy")
    }
    guard let context = order.context else { throw .failed("no TLS context") }
    try startHandshake(exchange, context: context)
  }

  /// Watches the exchange's socket for what its phase waits on.
  private func wait(_ exchange: ClientExchange) {
    guard let connection = exchange.connection else { return }
    loop.change(connection.fd, events: exchange.interest)
  }

  /// `remainder`: the bytes read after the reply, the start of the next one on the connection.
  private func complete(
    _ exchange: ClientExchange, reply: HTTPResponseParser.Response,
    remainder: ArraySlice<UInt8>
  ) {
    guard let connection = exchange.connection else { return }
    exchanges[exchange.id] = nil
    exchange.phase = .finished
    exchange.connection = nil
    connection.inFlight.removeFirst()
    connection.exchanges += 1
    // With TLS 1.3 the session ticket comes after the handshake: now it has.
    connection.tls?.saveSessionForResumption()
    if reply.keepAlive && reply.head.version == "HTTP/1.1" && !connection.isPersistent {
      connection.isPersistent = true
      origins[connection.poolKey, default: Origin()].persistent.append(connection)
    }
    // A request still being sent when the reply came (an early 413) spends the connection.
    let kept = reply.keepAlive && connection.bytesSent >= exchange.requestEnd
    let next = connection.inFlight.first
    if let next, kept {
      promote(next, receiving: remainder, now: ClientLoop.now())
    } else if next != nil {
      requeueUnanswered(on: connection)
      release(connection, reusable: false)
    } else {
      release(connection, reusable: kept && remainder.isEmpty)
    }
    if !exchange.abandoned {
      exchange.finish(
        .success(
          TransportResponse(
            status: reply.head.status, headers: reply.head.headers, body: reply.body)))
    }
    guard let next, kept else { return }
    pipelineWaiters(onto: connection, now: ClientLoop.now())
    // With nothing after the reply, the next one has not arrived: read when the loop says so.
    advance(next, justSent: remainder.isEmpty)
  }

  private func fail(_ exchange: ClientExchange, _ error: TransportError) {
    guard exchanges[exchange.id] != nil else { return }
    if let connection = exchange.connection, connection.inFlight.first !== exchange {
      // Pipelined behind the reply being read: its request is out, so its reply will come; it
      // is read then and thrown away (`complete`), and the connection goes on.
      exchanges[exchange.id] = nil
      exchange.abandoned = true
      return exchange.finish(.failure(error))
    }
    if exchange.connectingFD >= 0 {
      loop.unwatch(exchange.connectingFD)
      close(exchange.connectingFD)
      exchange.connectingFD = -1
    }
    let phase = exchange.phase
    exchange.phase = .finished
    if let connection = exchange.connection {
      exchange.connection = nil
      connection.inFlight.removeFirst()
      requeueUnanswered(on: connection)
      if exchange.reused, !exchange.abandoned, case .connectionLost(let reason) = error,
        reason == ClientConnection.staleConnection || reason == ClientConnection.resetWhileSending
      {
        // The server had closed the kept connection before our request reached it: its slot
        // goes to a fresh connection.
        retire(connection, from: &origins[connection.poolKey, default: Origin()])
        exchange.reused = false
        open(exchange, now: ClientLoop.now())
        return
      }
      release(connection, reusable: false)
    } else if case .queued = phase {
      origins[exchange.order.key]?.waiters.removeAll { $0 === exchange }
    } else {
      releaseSlot(exchange.order.key)
    }
    exchanges[exchange.id] = nil
    if exchange.abandoned { return }
    var reported = error
    if let proxy = exchange.order.proxy, case .cannotConnect(let reason) = error {
      switch phase {
      case .resolving, .connecting:
        reported = .cannotConnect("the proxy \(proxy.display): \(reason)")
      default: break
      }
    }
    if case .handshake = phase, case .connectionLost(let reason) = error,
      reason == "the connection was reset"
    {
      reported = .tls(
        TLSFailure(.handshakeFailed, "the server reset the connection during the TLS handshake"))
    }
    exchange.finish(.failure(reported))
  }

  /// Ends the exchanges whose deadline passed; the next deadline.
  /// The end of a turn of the loop: the requests pipelined meanwhile go out, then the
  /// deadlines are looked at; the next deadline.
  private func endTurn() -> Double? {
    for connection in unsent {
      // Out now; the reply being read is read when the loop says it arrived.
      if let head = connection.inFlight.first { advance(head, justSent: true) }
    }
    unsent.removeAll(keepingCapacity: true)
    return checkDeadlines()
  }

  private func checkDeadlines() -> Double? {
    guard !exchanges.isEmpty else { return nil }
    let now = ClientLoop.now()
    var next = Double.infinity
    // Every turn looks; almost always nothing is due, which needs no copy of the exchanges.
    var due = false
    for exchange in exchanges.values {
      let deadline = exchange.deadline
      if deadline <= now {
        due = true
        break
      }
      next = min(next, deadline)
    }
    if !due { return next.isFinite ? next : nil }
    next = .infinity
    for exchange in Array(exchanges.values) {
      var deadline = exchange.deadline
      if deadline <= now, let fd = exchange.watchedFD, loop.handleIfReady(fd) {
        // What had arrived is taken first; the exchange may have finished or moved on.
        guard exchanges[exchange.id] != nil else { continue }
        deadline = exchange.deadline
      }
      if deadline <= now {
        fail(exchange, exchange.timeoutError)
      } else {
        next = min(next, deadline)
      }
    }
    return next.isFinite ? next : nil
  }
}

/// Set when the task that sent a request is cancelled.
final class CancellationFlag: Sendable {
  private let flag = Atomic(false)
  func set() { flag.store(true, ordering: .releasing) }
  var isSet: Bool { flag.load(ordering: .acquiring) }
}
