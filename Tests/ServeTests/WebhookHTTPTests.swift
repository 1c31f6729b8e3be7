import Foundation
import SusiAccess
import SusiClock
import SusiCore
import SusiDelivery
import SusiHTTPClient
import SusiHTTPServer
import SusiHTTPTesting
import SusiHTTPTypes
import SusiJSON
import SusiRunner
import SusiServe
import SusiStore
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The webhook frontend behind the real HTTP server on 127.0.0.1, and deliveries to real
/// receivers; backoff runs on the test clock.
@Suite struct WebhookHTTPTests {
  static let rating =
    #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9}}"#
  static let secret = WebhookSecret.generate()

  /// Serves the fixture's handler on a free port.
  func serve(_ f: WebhookFixture) throws -> (HTTPServer, Int) {
    let server = HTTPServer(
      configuration: .init(host: "127.0.0.1", port: 0, eventLoopCount: 2), handler: f.handler)
    return (server, try server.start())
  }

  @Test func tenThousandUnknownKeysGet401AndAValidRequestIsStillServed() async throws {
    let f = try await WebhookFixture.make()
    let (server, port) = try serve(f)
    let bogus = KeyToken.generate().text
    let statuses = await withTaskGroup(of: [Int: Int].self) { group in
      for connection in 0..<4 {
        group.addTask {
          await onThread {
            let client = try? LoopbackHTTPClient(port: port)
            var counts: [Int: Int] = [:]
            for i in 0..<2500 {
              let key = (i + connection) % 2 == 0 ? bogus : "not-a-key"
              let response = try? client?.request(
                "POST", "/actions",
                headers: [
                  ("Authorization", "Bearer \(key)"), ("Content-Type", "application/json"),
                ], body: Self.rating)
              counts[response?.status ?? 0, default: 0] += 1
            }
            client?.close()
            return counts
          }
        }
      }
      var all: [Int: Int] = [:]
      for await part in group { all.merge(part, uniquingKeysWith: +) }
      return all
    }
    #expect(statuses == [401: 10_000])
    #expect(f.eventCount == 1)
    let key = f.adminKey
    let valid = await onThread {
      let client = try? LoopbackHTTPClient(port: port)
      defer { client?.close() }
      return try? client?.request(
        "POST", "/actions",
        headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
        body: Self.rating)
    }
    #expect(valid?.status == 202)
    #expect(valid?.text == #"{"seq":2}"#)
    await server.shutdown()
  }

  @Test func concurrentPostsOverTheServerAreEachAnsweredWithTheirOwnSeqAndLoggedOnce()
    async throws
  {
    let f = try await WebhookFixture.make()
    let (server, port) = try serve(f)
    let key = f.adminKey
    let answers = await withTaskGroup(of: [(Int, String, String?)].self) { group in
      for connection in 0..<8 {
        group.addTask {
          await onThread {
            let client = try? LoopbackHTTPClient(port: port)
            defer { client?.close() }
            return (0..<40).map { index in
              let headers = [
                ("Authorization", "Bearer \(key)"), ("Content-Type", "application/json"),
                ("X-Request-Id", "c\(connection)-\(index)"),
              ]
              // Every fifth request repeats the one before under the same Idempotency-Key.
              let idempotency = [("Idempotency-Key", "k\(connection)-\(index / 5 * 5)")]
              let response = try? client?.request(
                "POST", "/actions", headers: headers + (index % 5 < 2 ? idempotency : []),
                body: Self.rating)
              return (
                response?.status ?? 0, response?.text ?? "",
                response?.header("Idempotent-Replayed")
              )
            }
          }
        }
      }
      var all: [(Int, String, String?)] = []
      for await part in group { all += part }
      return all
    }
    #expect(answers.count == 320)
    #expect(answers.allSatisfy { $0.0 == 202 })
    let fresh = answers.filter { $0.2 == nil }.map(\.1)
    let replayed = answers.filter { $0.2 == "true" }.map(\.1)
    // 8 connections × 8 keys are repeated once each; everything else is new.
    #expect(replayed.count == 64)
    #expect(Set(fresh).count == fresh.count)
    #expect(Set(replayed).isSubset(of: Set(fresh)))
    #expect(fresh.allSatisfy { $0.hasPrefix(#"{"seq":"#) })
    #expect(f.types.filter { $0 == "submitRating" }.count == 256)
    let metrics = await f.request("GET", "/metrics", key: key)
    #expect(
      metrics.text.contains("susi_http_requests_total{route=\"/actions\",code=\"202\"} 320\n"))
    await server.shutdown()
  }

  @Test func limitsAndErrorsComeBackAsHTTPStatuses() async throws {
    let f = try await WebhookFixture.make()
    let (server, port) = try serve(f)
    let key = f.adminKey
    let answers = await onThread {
      let client = try? LoopbackHTTPClient(port: port)
      defer { client?.close() }
      let auth = [("Authorization", "Bearer \(key)")]
      return [
        try? client?.request("GET", "/nowhere", headers: auth).status,
        try? client?.request("DELETE", "/actions", headers: auth).status,
        try? client?.request(
          "POST", "/actions", headers: auth + [("Content-Type", "application/json")], body: "{"
        )
        .status,
        try? client?.request(
          "POST", "/actions", headers: auth + [("Content-Type", "application/json")],
          body: String(repeating: "x", count: 2 << 20)
        ).status,
      ]
    }
    #expect(answers == [404, 405, 400, 413])
    #expect(f.eventCount == 1)
    await server.shutdown()
  }

  @Test func streamClientSeesEventsLiveAndResumesAfterLastEventID() async throws {
    let f = try await WebhookFixture.make()
    let (server, port) = try serve(f)
    let key = f.adminKey
    // Connected before the action: it has read the stream's preamble.
    let live = await onThread { () -> EventStreamReader in
      let reader = EventStreamReader(port: port, key: key, lastEventID: nil)
      reader.read(until: "retry:")
      return reader
    }
    let posted = await f.request("POST", "/actions", key: key, body: Self.rating)
    #expect(posted.status == 202)
    let firstText = await onThread { () -> String in
      live.read(untilEvent: 3)
      live.close()
      return live.body
    }
    let first = SSECollector.parse(firstText)
    #expect(first.map(\.id) == [2, 3])

    for _ in 0..<2 { _ = await f.request("POST", "/actions", key: key, body: Self.rating) }
    await f.waitForEvents(7)
    let resumedText = await onThread { () -> String in
      let reader = EventStreamReader(port: port, key: key, lastEventID: 3)
      reader.read(untilEvent: 7)
      reader.close()
      return reader.body
    }
    let resumed = SSECollector.parse(resumedText)
    #expect(resumed.map(\.id) == [4, 5, 6, 7])
    for event in first + resumed { #expect(Array(event.data.utf8) == f.sink.lines[event.id - 1]) }
    await server.shutdown()
  }

  // MARK: Deliveries to real receivers

  @Test func receiverDownAtFirstAndARestartMidwayStillGetEveryEventInOrder() async throws {
    let directory = temporaryDirectory()
    let receiver = try Receiver { n, _ in HTTPResponse(status: n <= 2 ? 503 : 200) }
    let subscribers = try SubscriberFile(path: directory + "/log.subscribers")
    try subscribers.add(Subscriber(id: "hook", url: receiver.url, secret: Self.secret, after: 1))
    let f = try await WebhookFixture.make(
      directory: directory,
      transport: { _ in SocketTransport() },
      subscribers: subscribers,
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    for _ in 0..<2 { _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating) }
    await f.waitForEvents(5)
    await f.clock.waitForSleepers(count: 1)
    #expect(receiver.count == 1)
    await f.service.shutdown()

    let g = try await WebhookFixture.make(
      replaying: f.sink.lines, directory: directory, issueAdmin: false,
      transport: { _ in SocketTransport() },
      subscribers: try SubscriberFile(path: directory + "/log.subscribers"),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    await g.clock.waitForSleepers(count: 1)  // the second attempt failed too
    #expect(receiver.count == 2)
    await g.clock.advance(by: .milliseconds(5_000))
    await receiver.waitFor(count: 6)
    _ = await g.request("POST", "/actions", key: f.adminKey, body: Self.rating)
    await receiver.waitFor(count: 8)
    let seqs = receiver.requests.map { Int($0.headers["webhook-id"]!.dropFirst(4))! }
    #expect(seqs == [2, 2, 2, 3, 4, 5, 6, 7])
    for request in receiver.requests {
      #expect(
        WebhookSignature.verify(
          id: request.headers["webhook-id"]!, timestamp: request.headers["webhook-timestamp"]!,
          body: request.body,
          header: request.headers["webhook-signature"]!, secret: Self.secret))
    }
    await g.service.shutdown()
    await receiver.stop()
  }

  @Test func goneReceiverIsDisabledAndRedirectsAreNotFollowed() async throws {
    let directory = temporaryDirectory()
    let gone = try Receiver { _, _ in HTTPResponse(status: 410) }
    let elsewhere = try Receiver { _, _ in HTTPResponse(status: 200) }
    let redirecting = try Receiver { _, _ in
      HTTPResponse(status: 302, headers: ["Location": elsewhere.url])
    }
    let subscribers = try SubscriberFile(path: directory + "/log.subscribers")
    try subscribers.add(Subscriber(id: "gone", url: gone.url, secret: Self.secret, after: 1))
    try subscribers.add(
      Subscriber(id: "moved", url: redirecting.url, secret: Self.secret, after: 1))
    let f = try await WebhookFixture.make(
      directory: directory,
      transport: { _ in SocketTransport() },
      subscribers: subscribers,
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating)
    await gone.waitFor(count: 1)
    await redirecting.waitFor(count: 1)
    await f.clock.waitForSleepers(count: 1)  // the redirected delivery waits to be retried
    #expect(f.clock.pendingSleeps == [5_000])
    #expect(elsewhere.count == 0)
    await f.service.shutdown()
    #expect(
      try DeliveryCursors(path: directory + "/log.cursors").cursor("gone")?.disabled == "410 Gone")
    for receiver in [gone, elsewhere, redirecting] { await receiver.stop() }
  }

  @Test func hangingReceiverDoesNotDelayAnother() async throws {
    let directory = temporaryDirectory()
    let release = Gate()
    let hanging = try Receiver { _, _ in
      await release.wait()
      return HTTPResponse(status: 200)
    }
    let fast = try Receiver { _, _ in HTTPResponse(status: 204) }
    let subscribers = try SubscriberFile(path: directory + "/log.subscribers")
    try subscribers.add(Subscriber(id: "slow", url: hanging.url, secret: Self.secret, after: 1))
    try subscribers.add(Subscriber(id: "fast", url: fast.url, secret: Self.secret, after: 1))
    let f = try await WebhookFixture.make(
      directory: directory,
      transport: { _ in SocketTransport() },
      subscribers: subscribers,
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    for _ in 0..<3 { _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating) }
    await fast.waitFor(count: 6)
    #expect(hanging.count == 1)
    release.open()
    await hanging.waitFor(count: 6)
    await f.service.shutdown()
    for receiver in [hanging, fast] { await receiver.stop() }
  }
}

/// Reads a server-sent event stream, chunk by chunk, over the loopback client.
final class EventStreamReader: @unchecked Sendable {
  private let client: LoopbackHTTPClient?
  private var headRead = false
  private var received: [UInt8] = []

  init(port: Int, key: String, lastEventID: Int?) {
    client = try? LoopbackHTTPClient(port: port, timeoutSeconds: 20)
    var headers = [("Authorization", "Bearer \(key)")]
    if let lastEventID { headers.append(("Last-Event-ID", "\(lastEventID)")) }
    try? client?.sendRequest("GET", "/events/stream", headers: headers)
  }

  /// The body received so far.
  var body: String { String(decoding: received, as: UTF8.self) }

  /// Reads until the event with seq `id` has arrived whole.
  func read(untilEvent id: Int) {
    read { SSECollector.parse($0.body).contains { $0.id >= id } }
  }

  /// Reads until `marker` has arrived (or the stream ends, fails or times out).
  func read(until marker: String) {
    read { $0.body.contains(marker) }
  }

  private func read(until done: (EventStreamReader) -> Bool) {
    guard let client else { return }
    if !headRead {
      guard (try? client.readHeadBlocking()) != nil else { return }
      headRead = true
    }
    while !done(self) {
      guard let chunk = try? client.readChunkBlocking() else { return }
      received.append(contentsOf: chunk)
    }
  }

  func close() { client?.close() }
}

/// A small HTTP receiver on 127.0.0.1 that records what it gets and answers as told.
final class Receiver: HTTPHandler {
  struct Received: Sendable {
    var headers: HTTPHeaders
    var body: [UInt8]
  }

  private let answer: @Sendable (Int, HTTPRequest) async -> HTTPResponse
  private let server: HTTPServer
  private let state = Mutex<
    (requests: [Received], watchers: [(Int, CheckedContinuation<Void, Never>)])
  >(([], []))
  let url: String

  /// `answer` gets each request's number (1, 2, …) and the request.
  init(_ answer: @escaping @Sendable (Int, HTTPRequest) async -> HTTPResponse) throws {
    self.answer = answer
    let box = HandlerBox()
    let server = HTTPServer(
      configuration: .init(host: "127.0.0.1", port: 0, eventLoopCount: 1), handler: box)
    url = "http://127.0.0.1:\(try server.start())/hook"
    self.server = server
    box.handler = self
  }

  func handle(_ request: HTTPRequest) async -> HTTPResponse {
    let (number, woken) = state.withLock { s in
      s.requests.append(Received(headers: request.headers, body: request.body))
      let count = s.requests.count
      let ready = s.watchers.filter { $0.0 <= count }.map(\.1)
      s.watchers.removeAll { $0.0 <= count }
      return (count, ready)
    }
    for watcher in woken { watcher.resume() }
    return await answer(number, request)
  }

  var requests: [Received] { state.withLock { $0.requests } }
  var count: Int { requests.count }

  func waitFor(count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { s in
        if s.requests.count >= count { return true }
        s.watchers.append((count, continuation))
        return false
      }
      if now { continuation.resume() }
    }
  }

  func stop() async { await server.shutdown() }

  /// Lets the server hold the receiver before the receiver exists.
  private final class HandlerBox: HTTPHandler, @unchecked Sendable {
    weak var handler: Receiver?
    func handle(_ request: HTTPRequest) async -> HTTPResponse {
      await handler?.handle(request) ?? HTTPResponse(status: 503)
    }
  }
}

/// A one-shot signal: `wait` returns once `open` was called.
final class Gate: Sendable {
  private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { s in
        if s.open { return true }
        s.waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { s in
      s.open = true
      let all = s.waiters
      s.waiters = []
      return all
    }
    for waiter in waiters { waiter.resume() }
  }
}
