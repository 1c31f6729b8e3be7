import SusiHTTPTypes
import Testing

@testable import SusiHTTPServer

/// A short description of an action, so tests can state exactly what they expect.
func describe(_ action: HTTPConnectionStateMachine.Action) -> String {
  func mode(_ framing: HTTPResponseFraming) -> String { framing.keepAlive ? "keep-alive" : "close" }
  switch action {
  case .none: return "none"
  case .sendContinue: return "sendContinue"
  case .startHandler(let request):
    return
      "startHandler \(request.method) \(request.target) \(String(decoding: request.body, as: UTF8.self))"
  case .sendResponse(let response, let framing):
    return "sendResponse \(response.status) \(mode(framing))"
  case .startStream(let response, let framing):
    return "startStream \(response.status) \(mode(framing))"
  case .finishStream(let framing): return "finishStream \(mode(framing))"
  case .sendRejection(let rejection): return "sendRejection \(rejection.status)"
  case .halfCloseAndLinger: return "halfCloseAndLinger"
  case .close: return "close"
  }
}

@Suite struct HTTPConnectionStateMachineTests {
  var machine = HTTPConnectionStateMachine(
    limits: HTTPLimits(maxRequestsPerConnection: 3, maxPipelinedBytes: 100),
    timeouts: HTTPTimeouts(), remoteAddress: "127.0.0.1", now: .zero)

  mutating func receive(_ text: String, at seconds: Double = 0) -> String {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { describe(machine.bytesReceived($0, at: .seconds(seconds))) }
  }

  mutating func respond(_ status: Int = 200, headers: HTTPHeaders = [:], at seconds: Double = 0)
    -> String
  {
    describe(
      machine.responseProduced(
        HTTPResponse(status: status, headers: headers), at: .seconds(seconds)))
  }

  mutating func tick(_ seconds: Double) -> String {
    describe(machine.timePassed(at: .seconds(seconds)))
  }

  static let get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"

  @Test mutating func startsTheHandlerOnceTheWholeRequestArrived() {
    #expect(receive("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhel") == "none")
    #expect(receive("lo") == "startHandler POST /p hello")
  }

  @Test mutating func sendsContinueBeforeTheBody() {
    #expect(
      receive("POST /p HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        == "sendContinue")
    #expect(receive("o") == "none")
    #expect(receive("k") == "startHandler POST /p ok")
  }

  @Test mutating func skipsContinueWhenTheBodyIsAlreadyComing() {
    #expect(
      receive("POST /p HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\no")
        == "none")
  }

  @Test mutating func answersPipelinedRequestsOneAtATime() {
    #expect(receive(Self.get + "GET /b HTTP/1.1\r\nHost: x\r\n\r\n") == "startHandler GET /a ")
    #expect(respond() == "sendResponse 200 keep-alive")
    #expect(describe(machine.responseSent(at: .zero)) == "startHandler GET /b ")
    #expect(respond() == "sendResponse 200 keep-alive")
    #expect(describe(machine.responseSent(at: .zero)) == "none")
  }

  @Test mutating func stopsReadingWhenTooMuchIsPipelined() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(machine.wantsToRead)
    #expect(receive(String(repeating: Self.get, count: 4)) == "none")
    #expect(!machine.wantsToRead)
    #expect(respond() == "sendResponse 200 keep-alive")
    #expect(machine.wantsToRead)
  }

  @Test mutating func closesAfterConnectionClose() {
    #expect(
      receive("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n") == "startHandler GET / ")
    #expect(respond() == "sendResponse 200 close")
    #expect(describe(machine.outputWritten(remaining: 0, progressed: true, at: .zero)) == "close")
  }

  @Test mutating func lingersAfterClosingWhenMoreInputCame() {
    #expect(
      receive("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n") == "startHandler GET / ")
    #expect(receive("GET /more HTTP/1.1\r\n") == "none")
    #expect(respond() == "sendResponse 200 close")
    #expect(
      describe(machine.outputWritten(remaining: 0, progressed: true, at: .zero))
        == "halfCloseAndLinger")
    #expect(receive("ignored") == "none")
    #expect(tick(1.9) == "none")
    #expect(tick(2) == "close")
  }

  @Test mutating func closesWhenTheHandlerAsksTo() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(respond(headers: ["Connection": "Close"]) == "sendResponse 200 close")
  }

  @Test mutating func closesAfterTheRequestLimit() {
    for _ in 0..<2 {
      #expect(receive(Self.get) == "startHandler GET /a ")
      #expect(respond() == "sendResponse 200 keep-alive")
      #expect(describe(machine.responseSent(at: .zero)) == "none")
    }
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(respond() == "sendResponse 200 close")
  }

  @Test mutating func answers408WhenTheHeadIsLate() {
    #expect(receive("GET / HTTP/1.1\r\nHo") == "none")
    #expect(machine.nextDeadline == .seconds(10))
    #expect(tick(9.999) == "none")
    #expect(tick(10) == "sendRejection 408")
    #expect(receive("st: x\r\n\r\n") == "none")
  }

  @Test mutating func answers408ToAConnectionThatNeverSpeaks() {
    #expect(tick(9) == "none")
    #expect(tick(10) == "sendRejection 408")
  }

  @Test mutating func answers408WhenTheBodyIsLate() {
    #expect(receive("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabc", at: 3) == "none")
    #expect(tick(12.9) == "none")
    #expect(tick(13) == "sendRejection 408")
  }

  @Test mutating func closesAnIdleKeepAliveConnectionQuietly() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(respond(at: 1) == "sendResponse 200 keep-alive")
    #expect(describe(machine.responseSent(at: .seconds(1))) == "none")
    #expect(machine.nextDeadline == .seconds(6))
    #expect(tick(5.9) == "none")
    #expect(tick(6) == "close")
  }

  @Test mutating func givesAStartedHeadTheHeadTimeoutNotTheIdleOne() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(respond() == "sendResponse 200 keep-alive")
    #expect(describe(machine.responseSent(at: .zero)) == "none")
    #expect(receive("GET /b HTTP/1.1\r\n", at: 4) == "none")
    #expect(tick(6) == "none")
    #expect(tick(10) == "sendRejection 408")
  }

  @Test mutating func closesWhenTheClientStopsReading() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(respond() == "sendResponse 200 keep-alive")
    #expect(
      describe(machine.outputWritten(remaining: 100, progressed: true, at: .seconds(1))) == "none")
    #expect(
      describe(machine.outputWritten(remaining: 100, progressed: false, at: .seconds(20))) == "none"
    )
    #expect(tick(30.9) == "none")
    #expect(tick(31) == "close")
  }

  @Test mutating func startsTheIdleTimeOnceTheResponseIsWritten() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(respond() == "sendResponse 200 keep-alive")
    #expect(describe(machine.outputWritten(remaining: 100, progressed: true, at: .zero)) == "none")
    #expect(describe(machine.responseSent(at: .zero)) == "none")
    #expect(tick(8) == "none")
    #expect(
      describe(machine.outputWritten(remaining: 0, progressed: true, at: .seconds(9))) == "none")
    #expect(tick(13.9) == "none")
    #expect(tick(14) == "close")
  }

  @Test mutating func answersAClientThatHalfClosedAndThenCloses() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(describe(machine.peerClosed(at: .zero)) == "none")
    #expect(!machine.wantsToRead)
    #expect(respond() == "sendResponse 200 close")
    #expect(describe(machine.outputWritten(remaining: 0, progressed: true, at: .zero)) == "close")
  }

  @Test mutating func closesWhenTheClientLeavesMidRequest() {
    #expect(receive("GET / HTTP/1.1\r\n") == "none")
    #expect(describe(machine.peerClosed(at: .zero)) == "close")
    #expect(machine.isClosed)
  }

  @Test mutating func rejectsAndThenIgnoresFurtherBytes() {
    #expect(receive("GET / HTTP/1.1\r\nHost : x\r\n\r\n") == "sendRejection 400")
    #expect(receive(Self.get) == "none")
    #expect(
      describe(machine.outputWritten(remaining: 0, progressed: true, at: .zero))
        == "halfCloseAndLinger")
  }

  @Test mutating func closesAnIdleConnectionOnShutdown() {
    #expect(describe(machine.shutdownRequested(at: .zero)) == "close")
  }

  @Test mutating func finishesAnInFlightRequestOnShutdown() {
    #expect(receive(Self.get + Self.get) == "startHandler GET /a ")
    #expect(describe(machine.shutdownRequested(at: .zero)) == "none")
    #expect(respond() == "sendResponse 200 close")
  }

  @Test mutating func letsAStartedHeadFinishOnShutdown() {
    #expect(receive("GET /a HTTP/1.1\r\n") == "none")
    #expect(describe(machine.shutdownRequested(at: .zero)) == "none")
    #expect(receive("Host: x\r\n\r\n") == "startHandler GET /a ")
    #expect(respond() == "sendResponse 200 close")
  }

  @Test mutating func endsAStreamOnShutdown() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    let streamed = HTTPResponse(status: 200) { _ in }
    #expect(describe(machine.responseProduced(streamed, at: .zero)) == "startStream 200 keep-alive")
    #expect(describe(machine.shutdownRequested(at: .zero)) == "finishStream close")
    #expect(describe(machine.streamFinished(at: .zero)) == "none")
  }

  @Test mutating func keepsTheConnectionAfterAFinishedStream() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(
      describe(machine.responseProduced(HTTPResponse(status: 200) { _ in }, at: .zero))
        == "startStream 200 keep-alive")
    #expect(describe(machine.streamFinished(at: .zero)) == "finishStream keep-alive")
    #expect(describe(machine.responseSent(at: .zero)) == "none")
  }

  @Test mutating func cutsTheConnectionWhenAStreamFails() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(
      describe(machine.responseProduced(HTTPResponse(status: 200) { _ in }, at: .zero))
        == "startStream 200 keep-alive")
    #expect(describe(machine.streamFailed()) == "close")
  }

  @Test mutating func endsAStreamWhenTheClientLeaves() {
    #expect(receive(Self.get) == "startHandler GET /a ")
    #expect(
      describe(machine.responseProduced(HTTPResponse(status: 200) { _ in }, at: .zero))
        == "startStream 200 keep-alive")
    #expect(describe(machine.peerClosed(at: .zero)) == "close")
  }

  @Test mutating func handsHeadToTheHandlerAsGet() {
    let bytes = Array("HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
    let action = bytes.withUnsafeBytes { machine.bytesReceived($0, at: .zero) }
    guard case .startHandler(let request) = action else {
      Issue.record("the handler was not started")
      return
    }
    #expect(request.method == .get)
    #expect(request.isHead)
  }

  @Test mutating func answersHeadWithoutRunningTheStream() {
    #expect(receive("HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n") == "startHandler GET /a ")
    #expect(
      describe(machine.responseProduced(HTTPResponse(status: 200) { _ in }, at: .zero))
        == "sendResponse 200 keep-alive")
  }

  @Test mutating func streamsToHTTP10ClientsUntilClose() {
    #expect(receive("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") == "startHandler GET /a ")
    #expect(
      describe(machine.responseProduced(HTTPResponse(status: 200) { _ in }, at: .zero))
        == "startStream 200 close")
  }
}
