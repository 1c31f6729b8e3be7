import SusiClock
import SusiHTTPTesting
import Testing

@testable import SusiHTTPServer

/// Timeouts driven by a manual clock: nothing here sleeps.
@Suite struct HTTPServerTimeoutTests {
  static func configuration(_ clock: ManualTimeSource, loops: Int = 1) -> HTTPServer.Configuration {
    HTTPServer.Configuration(eventLoopCount: loops, clock: clock)
  }

  @Test(arguments: [1, 2])
  func answers408WhenTheHeadIsNotCompleteIn10Seconds(loops: Int) async throws {
    let clock = ManualTimeSource()
    try await withServer(Self.configuration(clock, loops: loops)) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /slow HTTP/1.1\r\nHost: ")
      await clock.advance(by: .seconds(9))
      try client.send("x\r\n")
      await clock.advance(by: .seconds(1))
      let response = try await client.readResponse()
      #expect(response.status == 408)
      #expect(response.header("Connection") == "close")
      #expect(try await client.readsEndOfStream())
    }
  }

  @Test func servesAHeadThatCompletesInTime() async throws {
    let clock = ManualTimeSource()
    try await withServer(Self.configuration(clock)) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET /ok HTTP/1.1\r\n")
      await clock.advance(by: .seconds(9))
      try client.send("Host: x\r\n\r\n")
      #expect(try await client.readResponse().status == 200)
    }
  }

  @Test func answers408WhenTheBodyIsNotCompleteIn10Seconds() async throws {
    let clock = ManualTimeSource()
    try await withServer(Self.configuration(clock)) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
      await clock.advance(by: .seconds(10))
      #expect(try await client.readResponse().status == 408)
    }
  }

  @Test func closesAnIdleKeepAliveConnectionQuietly() async throws {
    let clock = ManualTimeSource()
    try await withServer(Self.configuration(clock)) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await client.readResponse().status == 200)
      await clock.advance(by: .seconds(4))
      try client.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await client.readResponse().text == "GET /again ")
      await clock.advance(by: .seconds(5))
      #expect(try await client.readsEndOfStream())
    }
  }

  @Test func keepsAConnectionOpenWhileItsHandlerWorks() async throws {
    let clock = ManualTimeSource()
    let gate = Gate()
    let handler = ClosureHandler { request in
      await gate.wait()
      return HTTPResponse(status: 200, contentType: "text/plain", body: "late")
    }
    try await withServer(Self.configuration(clock), handler: handler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
      await clock.advance(by: .seconds(60))
      await gate.open()
      #expect(try await client.readResponse().text == "late")
    }
  }
}

/// Lets a test hold a handler until it chooses, and know when the handler has started.
actor Gate {
  private var isOpen = false
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private var arrivals = 0
  private var arrivalWaiters: [(Int, CheckedContinuation<Void, Never>)] = []

  func wait() async {
    arrivals += 1
    for (count, waiter) in arrivalWaiters where count <= arrivals { waiter.resume() }
    arrivalWaiters.removeAll { $0.0 <= arrivals }
    if isOpen { return }
    await withCheckedContinuation { waiters.append($0) }
  }

  /// Returns once `count` callers have reached `wait()`.
  func arrived(_ count: Int = 1) async {
    if arrivals >= count { return }
    await withCheckedContinuation { arrivalWaiters.append((count, $0)) }
  }

  func open() {
    isOpen = true
    for waiter in waiters { waiter.resume() }
    waiters = []
  }
}
