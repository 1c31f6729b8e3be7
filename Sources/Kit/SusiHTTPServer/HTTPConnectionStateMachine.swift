import SusiHTTPTypes

/// What one HTTP/1.1 connection is doing, and what the event loop should do next.
///
/// Sans-IO, in the manner of Hummingbird's HTTP/2 connection state machine: the loop reports
/// what happened (`bytesReceived`, `responseProduced`, `timePassed`, …), passing the time in, and
/// performs the returned `Action`. Requests on one connection are answered strictly one after
/// the other, so pipelined requests get their responses in order; bytes of later requests wait
/// in the parser meanwhile, and `wantsToRead` turns false when too many are waiting.
struct HTTPConnectionStateMachine {
  enum Action {
    case none
    /// Send `100 Continue`; the client is waiting for it before it sends the body.
    case sendContinue
    /// Run the handler for this request, then report `responseProduced`.
    case startHandler(HTTPRequest)
    /// Send this response. With `keepAlive`, report `responseSent` after queueing it;
    /// without, the connection closes once it is sent.
    case sendResponse(HTTPResponse, HTTPResponseFraming)
    /// Send this response's head and start its body stream; report `streamFinished` or
    /// `streamFailed` when the producer ends.
    case startStream(HTTPResponse, HTTPResponseFraming)
    /// Stop the stream's producer if it still runs and end the body cleanly (last chunk). With
    /// `keepAlive`, report `responseSent` afterwards; without, the connection closes.
    case finishStream(HTTPResponseFraming)
    /// Send the error response for a rejected request; the connection closes once it is sent.
    case sendRejection(HTTPRejection)
    /// Everything is sent: shut down the sending side and read (discarding) until the client
    /// closes or the linger time ends, so the last response is not lost to a reset.
    case halfCloseAndLinger
    /// Stop everything running for this connection and close it now.
    case close
  }

  private struct BodyInProgress {
    var head: HTTPRequestHead
    var body: [UInt8]
    var deadline: Duration
    var continueSent: Bool
  }

  private enum State {
    case awaitingHead(readySince: Duration)
    case awaitingBody(BodyInProgress)
    case handling(HTTPRequestHead)
    case streaming(HTTPResponseFraming)
    /// Sending a last response; the connection closes after it.
    case closing
    case lingering(until: Duration)
    case closed
  }

  /// Bytes a lingering connection discards before it gives up on a clean close.
  private static let maxLingerBytes = 64 * 1024

  private let limits: HTTPLimits
  private let timeouts: HTTPTimeouts
  private let remoteAddress: String
  private let loopbackUserID: UInt32?
  private var parser: HTTPRequestParser
  private var state: State
  private var requestCount = 0
  private var peerHalfClosed = false
  private var shuttingDown = false
  private var writeDeadline: Duration?
  private var lingerBytes = 0
  private var mayHaveUnreadInput = false

  /// Set on a connection opened in the reserve (see `HTTPLimits.reservedConnections`): the
  /// handler's `isPriority`, asked for each request head; others are answered 503.
  private let priorityCheck: (@Sendable (HTTPRequest) -> Bool)?

  init(
    limits: HTTPLimits, timeouts: HTTPTimeouts, remoteAddress: String, now: Duration,
    priorityCheck: (@Sendable (HTTPRequest) -> Bool)? = nil, loopbackUserID: UInt32? = nil
  ) {
    self.limits = limits
    self.timeouts = timeouts
    self.remoteAddress = remoteAddress
    self.loopbackUserID = loopbackUserID
    self.priorityCheck = priorityCheck
    self.parser = HTTPRequestParser(limits: limits)
    self.state = .awaitingHead(readySince: now)
  }

  // MARK: - What the loop asks

  /// Whether the loop should read from the socket.
  var wantsToRead: Bool {
    if peerHalfClosed { return false }
    switch state {
    case .closed: return false
    case .handling, .streaming: return parser.bufferedByteCount < limits.maxPipelinedBytes
    default: return true
    }
  }

  var isClosed: Bool {
    if case .closed = state { return true }
    return false
  }

  /// The earliest moment `timePassed` could have something to do, or nil.
  var nextDeadline: Duration? {
    // While a response is still being written, only the write timeout applies: the client
    // is not expected to send its next request before it has read this one.
    if let writeDeadline { return writeDeadline }
    var deadline: Duration?
    switch state {
    case .awaitingHead(let readySince):
      deadline = readySince + timeouts.head
      if isIdleKeepAlive { deadline = readySince + min(timeouts.idle, timeouts.head) }
    case .awaitingBody(let progress): deadline = progress.deadline
    case .lingering(let until): deadline = until
    default: break
    }
    return deadline
  }

  /// A kept-alive connection with no byte of its next request yet.
  private var isIdleKeepAlive: Bool { requestCount > 0 && parser.isAwaitingRequest }

  // MARK: - Events

  /// Bytes arrived from the client.
  mutating func bytesReceived(_ bytes: UnsafeRawBufferPointer, at now: Duration) -> Action {
    switch state {
    case .closed:
      return .none
    case .closing:
      mayHaveUnreadInput = true
      return .none
    case .lingering:
      lingerBytes += bytes.count
      if lingerBytes > Self.maxLingerBytes { return closeNow() }
      return .none
    case .awaitingHead, .awaitingBody, .handling, .streaming:
      parser.append(bytes)
      return processBufferedRequest(at: now)
    }
  }

  /// The client closed its sending side (read returned end-of-file).
  mutating func peerClosed(at now: Duration) -> Action {
    peerHalfClosed = true
    switch state {
    case .awaitingHead, .awaitingBody, .lingering, .streaming:
      // Nothing to answer, or a stream nobody reads any more.
      return closeNow()
    case .handling, .closing, .closed:
      // A client may half-close after its last request and still read the answer.
      return .none
    }
  }

  /// The handler answered the request reported by `.startHandler`.
  mutating func responseProduced(_ response: HTTPResponse, at now: Duration) -> Action {
    guard case .handling(let head) = state else { return .none }
    let isStream = response.bodyStream != nil && !head.isHead
    let framing = HTTPResponseFraming(
      keepAlive: head.keepAlive && !shuttingDown && !peerHalfClosed
        && requestCount < limits.maxRequestsPerConnection && !Self.asksToClose(response)
        && !(isStream && head.version == .http10),
      isHeadRequest: head.isHead, isHTTP10: head.version == .http10)
    if isStream {
      state = .streaming(framing)
      return .startStream(response, framing)
    }
    state = framing.keepAlive ? .awaitingHead(readySince: now) : .closing
    return .sendResponse(response, framing)
  }

  /// A kept-alive response has been queued; the next request may already be buffered.
  mutating func responseSent(at now: Duration) -> Action {
    guard case .awaitingHead = state else { return .none }
    state = .awaitingHead(readySince: now)
    return processBufferedRequest(at: now)
  }

  /// The stream's producer returned: the body is complete.
  mutating func streamFinished(at now: Duration) -> Action {
    guard case .streaming(let framing) = state else { return .none }
    state = framing.keepAlive ? .awaitingHead(readySince: now) : .closing
    return .finishStream(framing)
  }

  /// The stream's producer threw: the body cannot be completed, so the connection is cut.
  mutating func streamFailed() -> Action {
    guard case .streaming = state else { return .none }
    return closeNow()
  }

  /// Some queued output was written. `remaining` bytes are still waiting for the client.
  mutating func outputWritten(remaining: Int, progressed: Bool, at now: Duration) -> Action {
    if remaining > 0 {
      if progressed || writeDeadline == nil { writeDeadline = now + timeouts.write }
      return .none
    }
    if writeDeadline != nil, case .awaitingHead = state, parser.isAwaitingRequest {
      // The keep-alive idle time starts once the client has the whole response.
      state = .awaitingHead(readySince: now)
    }
    writeDeadline = nil
    guard case .closing = state else { return .none }
    // Lingering guards the last response against a reset caused by unread input; it is only
    // worth the wait when the client may still be sending.
    if peerHalfClosed || !(mayHaveUnreadInput || parser.bufferedByteCount > 0) { return closeNow() }
    state = .lingering(until: now + timeouts.linger)
    return .halfCloseAndLinger
  }

  /// The loop's clock reached `now`: enforce whichever deadline passed.
  mutating func timePassed(at now: Duration) -> Action {
    if let writeDeadline { return now >= writeDeadline ? closeNow() : .none }
    switch state {
    case .awaitingHead(let readySince):
      if isIdleKeepAlive && now >= readySince + timeouts.idle { return closeNow() }
      if now >= readySince + timeouts.head {
        return reject(
          HTTPRejection(status: 408, reason: "request head not received within \(timeouts.head)"))
      }
      return .none
    case .awaitingBody(let progress):
      if now >= progress.deadline {
        return reject(
          HTTPRejection(status: 408, reason: "request body not received within \(timeouts.body)"))
      }
      return .none
    case .lingering(let until):
      return now >= until ? closeNow() : .none
    default:
      return .none
    }
  }

  /// The server is shutting down: idle connections close now, busy ones after their response,
  /// and streams end.
  mutating func shutdownRequested(at now: Duration) -> Action {
    shuttingDown = true
    switch state {
    case .awaitingHead:
      return parser.isAwaitingRequest ? closeNow() : .none
    case .streaming(var framing):
      framing.keepAlive = false
      state = .closing
      return .finishStream(framing)
    default:
      return .none
    }
  }

  /// The socket failed or was closed by the loop.
  mutating func closed() { state = .closed }

  // MARK: - Reading requests

  private mutating func processBufferedRequest(at now: Duration) -> Action {
    while true {
      switch state {
      case .awaitingHead, .awaitingBody: break
      default: return .none
      }
      switch parser.next() {
      case .needMoreBytes:
        if case .awaitingBody(var progress) = state, progress.head.expectsContinue,
          !progress.continueSent, progress.body.isEmpty
        {
          progress.continueSent = true
          state = .awaitingBody(progress)
          return .sendContinue
        }
        if case .awaitingHead = state, shuttingDown, parser.isAwaitingRequest { return closeNow() }
        return .none
      case .head(let head):
        if let priorityCheck, !priorityCheck(request(head, body: [])) {
          return reject(
            HTTPRejection(
              status: 503, reason: "server busy: only priority requests are served now",
              retryAfterSeconds: 1))
        }
        requestCount += 1
        state = .awaitingBody(
          BodyInProgress(head: head, body: [], deadline: now + timeouts.body, continueSent: false))
      case .body(let bytes):
        guard case .awaitingBody(var progress) = state else { return closeNow() }
        state = .closing  // Released while appending, so the body is not copied.
        if progress.body.isEmpty {
          progress.body = bytes  // Usually the whole body arrives at once: no copy at all.
        } else {
          progress.body.append(contentsOf: bytes)
        }
        state = .awaitingBody(progress)
      case .end:
        guard case .awaitingBody(let progress) = state else { return closeNow() }
        state = .handling(progress.head)
        return .startHandler(request(progress.head, body: progress.body))
      case .rejected(let rejection):
        return reject(rejection)
      }
    }
  }

  /// What the handler sees: HEAD is passed on as GET (see `HTTPHandler`).
  private func request(_ head: HTTPRequestHead, body: [UInt8]) -> HTTPRequest {
    HTTPRequest(
      method: head.isHead ? .get : head.method, target: head.target, headers: head.headers,
      body: body, remoteAddress: remoteAddress, isHead: head.isHead,
      loopbackUserID: loopbackUserID)
  }

  private mutating func reject(_ rejection: HTTPRejection) -> Action {
    // A refused request's body, if any, was never read.
    mayHaveUnreadInput = true
    state = .closing
    return .sendRejection(rejection)
  }

  private mutating func closeNow() -> Action {
    state = .closed
    return .close
  }

  private static func asksToClose(_ response: HTTPResponse) -> Bool {
    response.headers.values("Connection").contains { value in
      value.split(separator: ",").contains {
        $0.trimmingCharacters(in: [" ", "\t"]).lowercased() == "close"
      }
    }
  }
}

extension Substring {
  fileprivate func trimmingCharacters(in set: Set<Character>) -> Substring {
    var result = self
    while let first = result.first, set.contains(first) { result.removeFirst() }
    while let last = result.last, set.contains(last) { result.removeLast() }
    return result
  }
}
