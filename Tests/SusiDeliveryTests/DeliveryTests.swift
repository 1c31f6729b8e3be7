import SusiClock
import SusiDelivery
import SusiHTTPClient
import SusiHTTPTypes
import SusiStore
import SusiTesting
import Testing

/// Outbound deliveries with a recording transport and a clock moved by hand: order, retries,
/// restarts, 410, and independence of subscribers.
@Suite struct DeliveryTests {
  static let secret = WebhookSecret.generate()

  @Test func deliversMatchingEventsInOrderSignedPerStandardWebhooks() async throws {
    let directory = FileManagerTestFolder().path
    let transport = RecordingTransport()
    let f = try await DeliveryFixture.make(
      transport: { _ in transport },
      subscribers: try subscribers(in: directory, events: ["actionRejected"], secret: Self.secret),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    for _ in 0..<3 { try await f.sendRating() }
    await transport.waitForRequests(3)
    await f.waitForEvents(7)
    let rejections = f.types.indices.filter { f.types[$0] == "actionRejected" }.map { $0 + 1 }
    #expect(rejections.count == 3)
    #expect(transport.seqs == rejections)
    for request in transport.requests {
      let id = try #require(request.headers["webhook-id"])
      let timestamp = try #require(request.headers["webhook-timestamp"])
      #expect(timestamp == String(f.clock.millisecondsSince1970() / 1000))
      #expect(request.headers["Content-Type"] == "application/json")
      #expect(request.url == "http://127.0.0.1:9/hook")
      #expect(
        WebhookSignature.verify(
          id: id, timestamp: timestamp, body: request.body,
          header: request.headers["webhook-signature"] ?? "",
          secret: Self.secret))
      #expect(request.body == f.sink.lines[Int(id.dropFirst(4))! - 1])
    }
    #expect(f.deliveries.counters.count("hook", .delivered) == 3)
    await f.shutdown()
    let cursors = try DeliveryCursors(path: directory + "/log.cursors")
    #expect(cursors.cursor("hook")?.delivered == 7)
  }

  @Test func subscriberDownAtFirstAndRestartedMidwayGetsEveryEventInOrder() async throws {
    let directory = FileManagerTestFolder().path
    let failing = RecordingTransport { (_, _) throws(TransportError) in
      throw .cannotConnect("refused")
    }
    let f = try await DeliveryFixture.make(
      transport: { _ in failing },
      subscribers: try subscribers(in: directory, secret: Self.secret),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    for _ in 0..<3 { try await f.sendRating() }
    await f.waitForEvents(7)
    await f.clock.waitForSleepers(count: 1)
    #expect(f.clock.pendingSleeps.first == 5_000)
    await f.clock.advance(by: .milliseconds(5_000))
    await failing.waitForRequests(2)
    await f.clock.waitForSleepers(count: 1)
    #expect(f.clock.pendingSleeps.first == 300_000)
    #expect(failing.seqs == [2, 2])
    #expect(f.deliveries.counters.count("hook", .failed) == 2)
    await f.shutdown()

    // A new process with the same files; the subscriber is still down once, then up.
    let recovering = RecordingTransport { (_, n) throws(TransportError) in
      if n == 1 { throw .timedOut }
      return TransportResponse(status: 200)
    }
    let g = try await DeliveryFixture.make(
      replaying: f.sink.lines, transport: { _ in recovering },
      subscribers: try SubscriberFile(path: directory + "/log.subscribers"),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    await g.clock.waitForSleepers(count: 1)
    await g.clock.advance(by: .milliseconds(5_000))
    await recovering.waitForRequests(7)
    try await g.sendRating()
    await recovering.waitForRequests(9)
    #expect(recovering.seqs == [2, 2, 3, 4, 5, 6, 7, 8, 9])
    await g.shutdown()
    #expect(try DeliveryCursors(path: directory + "/log.cursors").cursor("hook")?.delivered == 9)
  }

  @Test func goneDisablesTheSubscriberForGoodUntilEnabled() async throws {
    let directory = FileManagerTestFolder().path
    let gone = RecordingTransport { _, _ in TransportResponse(status: 410) }
    let f = try await DeliveryFixture.make(
      transport: { _ in gone }, subscribers: try subscribers(in: directory, secret: Self.secret),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    try await f.sendRating()
    await gone.waitForRequests(1)
    await waitUntil("the subscriber is disabled") {
      f.deliveries.statuses(lastSeq: 0).first?.disabled != nil
    }
    #expect(f.deliveries.statuses(lastSeq: 0).first?.disabled == "410 Gone")
    await f.waitForEvents(3)
    let status = try #require(f.deliveries.statuses(lastSeq: 3).first)
    #expect(status.backlog == 2)
    #expect(f.deliveries.counters.count("hook", .gone) == 1)
    await f.shutdown()

    // After a restart it stays disabled.
    let quiet = RecordingTransport()
    let g = try await DeliveryFixture.make(
      replaying: f.sink.lines, transport: { _ in quiet },
      subscribers: try SubscriberFile(path: directory + "/log.subscribers"),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    try await g.sendRating()
    await g.waitForEvents(5)
    #expect(g.deliveries.statuses(lastSeq: 0).first?.disabled == "410 Gone")
    // Enabling resumes with the event that was refused.
    try await g.deliveries.enable("hook")
    await quiet.waitForRequests(4)
    #expect(quiet.seqs == [2, 3, 4, 5])
    #expect(gone.requests.count == 1)
  }

  @Test func hangingSubscriberDoesNotDelayAnother() async throws {
    let directory = FileManagerTestFolder().path
    let hanging = RecordingTransport { (_, _) throws(TransportError) in
      do {
        try await Task.sleep(for: .seconds(3600))
      } catch {
        throw .cancelled
      }
      return TransportResponse(status: 200)
    }
    let healthy = RecordingTransport()
    let f = try await DeliveryFixture.make(
      transport: { $0.id == "slow" ? hanging : healthy },
      subscribers: try subscribers(in: directory, ids: ["slow", "fast"], secret: Self.secret),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    for _ in 0..<5 { try await f.sendRating() }
    await healthy.waitForRequests(10)
    #expect(healthy.seqs == Array(2...11))
    #expect(hanging.seqs == [2])
    // Shutting down waits for the attempt in progress only as long as the grace period.
    async let stopped: Void = f.deliveries.shutdown(grace: 5_000)
    await f.clock.waitForSleepers(count: 1)
    await f.clock.advance(by: .milliseconds(5_000))
    await stopped
    #expect(try DeliveryCursors(path: directory + "/log.cursors").cursor("slow")?.delivered == 1)
    #expect(try DeliveryCursors(path: directory + "/log.cursors").cursor("fast")?.delivered == 11)
  }

  @Test func retryAfterAndRedirectsAreFailuresThatWait() async throws {
    let directory = FileManagerTestFolder().path
    let answers = RecordingTransport { _, n in
      switch n {
      case 1: TransportResponse(status: 503, headers: ["Retry-After": "120"])
      case 2: TransportResponse(status: 302, headers: ["Location": "http://127.0.0.1:9/elsewhere"])
      default: TransportResponse(status: 200)
      }
    }
    let f = try await DeliveryFixture.make(
      transport: { _ in answers },
      subscribers: try subscribers(in: directory, secret: Self.secret),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    try await f.sendRating()
    await f.clock.waitForSleepers(count: 1)
    #expect(f.clock.pendingSleeps.first == 120_000)
    await f.clock.advance(by: .milliseconds(120_000))
    await answers.waitForRequests(2)
    await f.clock.waitForSleepers(count: 1)
    #expect(f.clock.pendingSleeps.first == 300_000)
    await f.clock.advance(by: .milliseconds(300_000))
    await answers.waitForRequests(4)
    #expect(answers.seqs == [2, 2, 2, 3])
    #expect(answers.requests.allSatisfy { $0.url == "http://127.0.0.1:9/hook" })
  }

  @Test func backoffFollowsTheScheduleAndRepeatsTheLastWait() {
    let policy = DeliveryPolicy(jitter: 0)
    let waits = (1...12).map { policy.delay(afterFailures: $0) }
    #expect(
      waits == [
        5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000,
        86_400_000, 86_400_000,
        86_400_000, 86_400_000,
      ])
    let jittered = DeliveryPolicy(jitter: 0.1)
    #expect(jittered.delay(afterFailures: 1, random: 0.999) <= 5_500)
    #expect(jittered.delay(afterFailures: 1, random: 0.5) == 5_250)
  }
}
