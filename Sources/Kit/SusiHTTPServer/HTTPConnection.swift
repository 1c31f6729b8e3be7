import CEpoll
import Glibc
import SusiTLS

/// One accepted socket: performs what its `HTTPConnectionStateMachine` decides.
///
/// On an HTTPS server a `TLSSession` sits between the socket and the state machine: bytes read
/// are fed to it and what it decrypts goes to the machine; responses are encrypted into `wire`
/// and sent from there. The machine never knows.
///
/// Lives on its event loop's thread and is only touched there (handler and stream tasks run on
/// that loop as their executor, and hop back with `runOnLoop` before touching it), which is why
/// it may be marked `@unchecked Sendable`.
final class HTTPConnection: @unchecked Sendable {
  let key: UInt64
  /// The peer's address, for the per-address connection count.
  let remoteAddress: String
  /// How its slot was given (regular, or in the reserve).
  let admission: OpenConnections.Admission
  private let fd: Int32
  private unowned let loop: EventLoop
  private var machine: HTTPConnectionStateMachine
  /// Response bytes not yet sent (plain HTTP) or not yet encrypted (TLS).
  private var output: [UInt8] = []
  private var outputStart = 0
  private let tls: TLSSession?
  /// Encrypted bytes not yet sent (TLS only).
  private var wire: [UInt8] = []
  private var wireStart = 0
  private var handlerTask: Task<Void, Never>?
  /// Inside the handler's `respond(to:with:)` for this connection's request.
  private var isAskingHandler = false
  private var stream: ResponseStreamSink?
  private var registeredInterest: UInt32
  private(set) var isClosed = false

  init(
    key: UInt64, fd: Int32, loop: EventLoop, remoteAddress: String,
    admission: OpenConnections.Admission, machine: HTTPConnectionStateMachine,
    tls: TLSSession? = nil
  ) {
    self.key = key
    self.remoteAddress = remoteAddress
    self.admission = admission
    self.fd = fd
    self.loop = loop
    self.machine = machine
    self.tls = tls
    self.registeredInterest = Self.interest(wantsToRead: machine.wantsToRead, pendingOutput: 0)
  }

  /// The readiness events this connection wants reported.
  var interest: UInt32 {
    Self.interest(wantsToRead: machine.wantsToRead, pendingOutput: pendingOutput)
  }

  private static func interest(wantsToRead: Bool, pendingOutput: Int) -> UInt32 {
    var events: UInt32 = 0
    if wantsToRead { events |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
    if pendingOutput > 0 { events |= EPOLLOUT.rawValue }
    return events
  }

  var nextDeadline: Duration? { machine.nextDeadline }

  var pendingOutput: Int { output.count - outputStart + wire.count - wireStart }

  // MARK: - Loop events

  func handle(events: UInt32, now: Duration) {
    let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue
    if events & readable != 0 && machine.wantsToRead { readAvailable(now: now) }
    if !isClosed && events & EPOLLOUT.rawValue != 0 { flush(now: now) }
    if !isClosed && events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { forceClose() }
    afterEvent()
  }

  func timePassed(now: Duration) {
    perform(machine.timePassed(at: now), now: now)
    afterEvent()
  }

  func shutdownRequested(now: Duration) {
    perform(machine.shutdownRequested(at: now), now: now)
    afterEvent()
  }

  /// Closes at once: the shutdown grace period is over, or the socket failed. A handler still
  /// running is cancelled, since nobody can receive its answer.
  func forceClose() {
    machine.closed()
    handlerTask?.cancel()
    closeSocket()
  }

  private func readAvailable(now: Duration) {
    let buffer = loop.readBuffer
    while true {
      let count = recv(fd, buffer.baseAddress, buffer.count, 0)
      if count > 0 {
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        if let tls {
          decrypt(bytes, with: tls, now: now)
        } else {
          perform(machine.bytesReceived(bytes, at: now), now: now)
        }
        return
      }
      if count == 0 {
        if let tls {
          tls.receivedEnd()
          if !tls.isEstablished {
            forceClose()
            return
          }
        }
        perform(machine.peerClosed(at: now), now: now)
        return
      }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return
      default:
        forceClose()
        return
      }
    }
  }

  /// Feeds ciphertext to TLS, answers the handshake, and hands whatever it decrypts to the
  /// machine. The loop's read buffer holds `bytes`, so decrypted bytes go to a buffer of their
  /// own.
  private func decrypt(_ bytes: UnsafeRawBufferPointer, with tls: TLSSession, now: Duration) {
    do throws(TLSFailure) {
      try tls.received(bytes)
      if try tls.handshake() == .needsInput {
        flush(now: now)
        return
      }
      var plain = [UInt8](repeating: 0, count: 16 * 1024)
      while !isClosed {
        let result = try plain.withUnsafeMutableBytes { raw in
          Result { () throws(TLSFailure) in try tls.read(into: raw) }
        }.get()
        guard case .bytes(let count) = result else {
          if result == .closed { perform(machine.peerClosed(at: now), now: now) }
          break
        }
        plain.withUnsafeBytes { raw in
          perform(
            machine.bytesReceived(UnsafeRawBufferPointer(rebasing: raw[0..<count]), at: now),
            now: now)
        }
      }
      flush(now: now)
    } catch {
      if error.kind == .notTLS {
        // A plain HTTP client on the HTTPS port: tell it in words it can read.
        HTTPResponseEncoder.plainRequestOnTLSPort.withUnsafeBytes { _ = Socket.send(fd, $0) }
      } else {
        flush(now: now)
      }
      forceClose()
    }
  }

  /// Brings the loop's view of this connection up to date after anything happened.
  private func afterEvent() {
    guard !isClosed else { return }
    let wanted = interest
    if wanted != registeredInterest {
      registeredInterest = wanted
      loop.updateInterest(fd: fd, key: key, events: wanted)
    }
    loop.noteDeadline(machine.nextDeadline)
  }

  // MARK: - Performing actions

  private func perform(_ action: HTTPConnectionStateMachine.Action, now: Duration) {
    switch action {
    case .none:
      break
    case .sendContinue:
      output.append(contentsOf: HTTPResponseEncoder.continueResponse)
      flush(now: now)
    case .startHandler(let request):
      startHandler(request)
    case .sendResponse(let response, let framing):
      HTTPResponseEncoder.encode(
        response, framing: framing, date: loop.currentDate(), into: &output)
      flush(now: now)
      if framing.keepAlive && !isClosed { perform(machine.responseSent(at: now), now: now) }
    case .startStream(let response, let framing):
      HTTPResponseEncoder.encodeStreamHead(
        response, framing: framing, date: loop.currentDate(), into: &output)
      flush(now: now)
      if let bodyStream = response.bodyStream, !isClosed {
        startStream(bodyStream, chunked: !framing.isHTTP10)
      }
    case .finishStream(let framing):
      let chunked = stream?.chunked ?? !framing.isHTTP10
      stream?.end()
      stream = nil
      if chunked { output.append(contentsOf: HTTPResponseEncoder.lastChunk) }
      flush(now: now)
      if framing.keepAlive && !isClosed { perform(machine.responseSent(at: now), now: now) }
    case .sendRejection(let rejection):
      HTTPResponseEncoder.encodeRejection(rejection, date: loop.currentDate(), into: &output)
      flush(now: now)
    case .halfCloseAndLinger:
      if let tls {
        tls.close()
        flush(now: now)
      }
      shutdown(fd, Int32(SHUT_WR))
    case .close:
      closeSocket()
    }
  }

  private func startHandler(_ request: HTTPRequest) {
    let loop = self.loop
    let handler = loop.handler
    loop.taskStarted()
    if handler.respondsInline(to: request) && respondInline(request, handler: handler) { return }
    handlerTask = Task(executorPreference: loop) {
      let response = await handler.handle(request)
      // Usually the task is back on the loop's thread by now (its executor): the response goes
      // out at once, with no closure queued for it.
      if loop.isOnLoopThread {
        self.handlerFinished(response)
      } else {
        loop.execute { self.handlerFinished(response) }
      }
    }
  }

  /// Offers the request to the handler's `respond(to:with:)`: whether it took it.
  private func respondInline(_ request: HTTPRequest, handler: any HTTPHandler) -> Bool {
    let loop = self.loop
    // The handler may take the request without a task (see `HTTPHandler.respond(to:with:)`).
    // An answer given before it returns waits for the loop's work of this turn, so a run of
    // pipelined requests answered at once does not nest one call inside another.
    let responder = HTTPResponder(executor: loop) { response in
      if !loop.isOnLoopThread {
        loop.execute { self.handlerFinished(response) }
      } else if self.isAskingHandler {
        loop.runLater { self.handlerFinished(response) }
      } else {
        self.handlerFinished(response)
      }
    }
    isAskingHandler = true
    let taken = handler.respond(to: request, with: responder)
    isAskingHandler = false
    return taken
  }

  /// Sends what the handler answered; on the loop thread.
  private func handlerFinished(_ response: HTTPResponse) {
    handlerTask = nil
    if !isClosed {
      let now = loop.now
      perform(machine.responseProduced(response, at: now), now: now)
      afterEvent()
    }
    loop.taskEnded()
  }

  private func startStream(_ bodyStream: HTTPBodyStream, chunked: Bool) {
    let loop = self.loop
    let sink = ResponseStreamSink(loop: loop, connection: self, chunked: chunked)
    stream = sink
    loop.taskStarted()
    sink.task = Task(executorPreference: loop) {
      let writer = HTTPBodyWriter { bytes in try await sink.write(bytes) }
      let failed: Bool
      do {
        try await bodyStream.produce(writer)
        failed = false
      } catch {
        failed = true
      }
      loop.runOnLoop {
        if self.stream === sink && !self.isClosed {
          let now = loop.now
          self.stream = nil
          sink.end()
          self.perform(
            failed ? self.machine.streamFailed() : self.machine.streamFinished(at: now), now: now)
          self.afterEvent()
        }
        loop.taskEnded()
      }
    }
  }

  /// Queues one piece of a streamed body; called by the stream's sink on the loop thread.
  func appendStreamBytes(_ bytes: [UInt8], chunked: Bool) {
    if chunked {
      HTTPResponseEncoder.encodeChunk(bytes, into: &output)
    } else {
      output.append(contentsOf: bytes)
    }
    flush(now: loop.now)
    afterEvent()
  }

  // MARK: - Writing and closing

  private func flush(now: Duration) {
    guard !isClosed else { return }
    let progressed: Bool
    if let tls {
      if outputStart < output.count {
        let outcome = output.withUnsafeBytes { raw in
          Result { () throws(TLSFailure) in
            try tls.write(UnsafeRawBufferPointer(rebasing: raw[outputStart...]))
          }
        }
        guard case .success = outcome else {
          forceClose()
          return
        }
        output.removeAll(keepingCapacity: output.capacity <= 256 * 1024)
        outputStart = 0
      }
      tls.takeOutput(appendingTo: &wire)
      guard let sent = send(&wire, from: &wireStart) else { return forceClose() }
      progressed = sent
    } else {
      guard let sent = send(&output, from: &outputStart) else { return forceClose() }
      progressed = sent
    }
    stream?.outputDrained(
      pending: pendingOutput, limit: loop.configuration.limits.maxBufferedResponseBytes)
    perform(
      machine.outputWritten(remaining: pendingOutput, progressed: progressed, at: now), now: now)
  }

  /// Sends what the socket takes of `buffer[start...]`: whether anything went out, or nil when
  /// the socket failed. The caller closes it then: closing here would clear the buffer while
  /// it is still being accessed (`inout`), which Swift's exclusivity check stops with a trap.
  private func send(_ buffer: inout [UInt8], from start: inout Int) -> Bool? {
    var progressed = false
    while start < buffer.count {
      let sent = buffer.withUnsafeBytes { raw in
        Socket.send(fd, UnsafeRawBufferPointer(rebasing: raw[start...]))
      }
      guard let sent else { return nil }
      if sent == 0 { break }
      start += sent
      progressed = true
    }
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: buffer.capacity <= 256 * 1024)
      start = 0
    } else if start > 64 * 1024 && start * 2 > buffer.count {
      buffer.removeSubrange(0..<start)
      start = 0
    }
    return progressed
  }

  private func closeSocket() {
    guard !isClosed else { return }
    isClosed = true
    machine.closed()
    stream?.end()
    stream = nil
    output = []
    outputStart = 0
    wire = []
    wireStart = 0
    close(fd)
    loop.connectionClosed(self)
  }
}
