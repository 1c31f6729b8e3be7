import CEpoll
import Glibc

/// One accepted socket: performs what its `HTTPConnectionStateMachine` decides.
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
  private var output: [UInt8] = []
  private var outputStart = 0
  private var handlerTask: Task<Void, Never>?
  private var stream: ResponseStreamSink?
  private var registeredInterest: UInt32
  private(set) var isClosed = false

  init(
    key: UInt64, fd: Int32, loop: EventLoop, remoteAddress: String,
    admission: OpenConnections.Admission, machine: HTTPConnectionStateMachine
  ) {
    self.key = key
    self.remoteAddress = remoteAddress
    self.admission = admission
    self.fd = fd
    self.loop = loop
    self.machine = machine
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

  var pendingOutput: Int { output.count - outputStart }

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
        perform(
          machine.bytesReceived(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), at: now),
          now: now)
        return
      }
      if count == 0 {
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
      shutdown(fd, Int32(SHUT_WR))
    case .close:
      closeSocket()
    }
  }

  private func startHandler(_ request: HTTPRequest) {
    let loop = self.loop
    let handler = loop.handler
    loop.taskStarted()
    handlerTask = Task(executorPreference: loop) {
      let response = await handler.handle(request)
      loop.runOnLoop {
        self.handlerTask = nil
        if !self.isClosed {
          let now = loop.now
          self.perform(self.machine.responseProduced(response, at: now), now: now)
          self.afterEvent()
        }
        loop.taskEnded()
      }
    }
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
    var progressed = false
    while outputStart < output.count {
      let sent = output.withUnsafeBytes { raw in
        Socket.send(fd, UnsafeRawBufferPointer(rebasing: raw[outputStart...]))
      }
      guard let sent else {
        forceClose()
        return
      }
      if sent == 0 { break }
      outputStart += sent
      progressed = true
    }
    if outputStart == output.count {
      output.removeAll(keepingCapacity: output.capacity <= 256 * 1024)
      outputStart = 0
    } else if outputStart > 64 * 1024 && outputStart * 2 > output.count {
      output.removeSubrange(0..<outputStart)
      outputStart = 0
    }
    stream?.outputDrained(
      pending: pendingOutput, limit: loop.configuration.limits.maxBufferedResponseBytes)
    perform(
      machine.outputWritten(remaining: pendingOutput, progressed: progressed, at: now), now: now)
  }

  private func closeSocket() {
    guard !isClosed else { return }
    isClosed = true
    machine.closed()
    stream?.end()
    stream = nil
    output = []
    outputStart = 0
    close(fd)
    loop.connectionClosed(self)
  }
}
