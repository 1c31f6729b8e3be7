import Glibc
import SusiClock
import Synchronization

/// An HTTP/1.1 server on POSIX sockets: epoll event loops, keep-alive, pipelining, streamed
/// responses, hard limits and graceful shutdown.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 8080), handler: MyHandler())
/// let port = try server.start()
/// // … serve …
/// await server.shutdown()
/// ```
///
/// Requests that break RFC 9112 framing rules, or exceed a limit, are answered (400, 408, 413,
/// 414, 417, 431, 501, 505) and their connection closed; they never reach the handler. Chunked
/// request bodies are decoded strictly, within the body limit, and handed over whole like any
/// other body, so the server never needs to answer 411. Connections over the limit, in all or
/// from one address, get 503; connections in the reserve serve only priority requests (see
/// `HTTPLimits` and `HTTPHandler.isPriority`).
///
/// Handlers run on the event-loop threads (see `HTTPHandler`); requests on one connection are
/// answered strictly in order, so pipelined requests get their responses in request order.
public final class HTTPServer: Sendable {
  private enum Phase {
    case idle
    case running([EventLoop])
    case stopping
    case stopped
  }

  private struct State {
    var phase = Phase.idle
    var drainedLoops = 0
    var loopCount = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
    var port: Int?
  }

  private let configuration: Configuration
  private let handler: any HTTPHandler
  private let state = Mutex(State())
  private let openConnections = OpenConnections()

  /// Creates a server; nothing happens until `start()`.
  public init(configuration: Configuration, handler: any HTTPHandler) {
    self.configuration = configuration
    self.handler = handler
  }

  /// The port the server listens on, once started.
  public var port: Int? { state.withLock { $0.port } }

  /// Connections open right now.
  public var openConnectionCount: Int { openConnections.current }

  /// Binds, listens and starts the event loops; returns the bound port (the chosen one when the
  /// configuration says 0). Throws `HTTPServerError` when the address cannot be used. The server
  /// then runs on its own threads until `shutdown()`, even if this object is released.
  @discardableResult
  public func start() throws -> Int {
    try state.withLock { state in
      guard case .idle = state.phase else {
        throw HTTPServerError(code: .alreadyStarted, message: "the server was already started")
      }
      let (listener, port) = try Socket.listen(
        host: configuration.host, port: configuration.port, backlog: configuration.backlog)
      var loops: [EventLoop] = []
      do {
        for index in 0..<max(1, configuration.eventLoopCount) {
          loops.append(
            try EventLoop(
              index: index, configuration: configuration, handler: handler,
              openConnections: openConnections, onDrained: { [weak self] in self?.loopDrained() }))
        }
        loops[0].adoptListener(listener, peers: loops)
        for loop in loops { try loop.startThread() }
      } catch {
        close(listener)
        throw error
      }
      // Held strongly: a weak reference would give every loop a side table, and every retain of
      // a loop (each request takes several) would then take the runtime's slow path. A manual
      // clock keeps the loops it observes; a stopped loop settles at once.
      for loop in loops {
        configuration.clock.addObserver { await loop.settle() }
      }
      state.phase = .running(loops)
      state.loopCount = loops.count
      state.port = port
      return port
    }
  }

  /// Shuts down gracefully and returns when every connection is closed.
  ///
  /// The listener closes at once, so new connections are refused. Idle keep-alive connections
  /// close; requests in flight finish and are answered with `Connection: close`; streamed
  /// responses are ended (their producers are cancelled and the body is terminated cleanly).
  /// Whatever is still open after `timeouts.shutdownGrace` is closed anyway. Safe to call more
  /// than once and from several tasks; every call returns when the shutdown is complete.
  public func shutdown() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let loops: [EventLoop] = state.withLock { state in
        switch state.phase {
        case .idle, .stopped:
          state.phase = .stopped
          continuation.resume()
          return []
        case .stopping:
          state.waiters.append(continuation)
          return []
        case .running(let loops):
          state.phase = .stopping
          state.waiters.append(continuation)
          return loops
        }
      }
      for loop in loops { loop.beginShutdown() }
    }
  }

  private func loopDrained() {
    let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
      state.drainedLoops += 1
      guard state.drainedLoops == state.loopCount else { return [] }
      state.phase = .stopped
      let waiters = state.waiters
      state.waiters = []
      return waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
