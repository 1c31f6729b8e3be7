import Foundation
import SusiClock
import SusiCore
import SusiHTTP
import SusiHTTPClient
import SusiHTTPTypes
import SusiJSON
import SusiRunner
import SusiStore
import SusiWebhook
import Synchronization
import Testing

/// Outbound deliveries with a recording transport and a clock moved by hand: order, retries,
/// restarts, 410, and independence of subscribers.
@Suite struct WebhookDeliveryTests {
  static let rating =
    #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9}}"#
  static let secret = WebhookSecret.generate()

  /// A subscriber file in `directory` holding one subscriber that gets every event after seq 1.
  func subscribers(in directory: String, ids: [String] = ["hook"], events: Set<String> = []) throws
    -> SubscriberFile
  {
    let file = try SubscriberFile(path: directory + "/log.subscribers")
    for id in ids {
      try file.add(
        Subscriber(
          id: id, url: "http://127.0.0.1:9/\(id)", events: events, secret: Self.secret, after: 1))
    }
    return file
  }

  @Test func deliversMatchingEventsInOrderSignedPerStandardWebhooks() async throws {
    let directory = temporaryDirectory()
    let transport = RecordingTransport()
    let f = try await WebhookFixture.make(
      directory: directory, transport: { _ in transport },
      subscribers: try subscribers(in: directory, events: ["actionRejected"]),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    for _ in 0..<3 { _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating) }
    await transport.waitForRequests(3)
    await f.waitForEvents(7)
    let rejections = f.types.indices.filter { f.types[$0] == "actionRejected" }.map { $0 + 1 }
    #expect(rejections.count == 3)
    #expect(transport.seqs == rejections)
    for request in transport.requests {
      let id = try #require(request.headers["webhook-id"])
      let timestamp = try #require(request.headers["webhook-timestamp"])
      #expect(timestamp == String(f.clock.now().milliseconds / 1000))
      #expect(request.headers["Content-Type"] == "application/json")
      #expect(request.url == "http://127.0.0.1:9/hook")
      #expect(
        WebhookSignature.verify(
          id: id, timestamp: timestamp, body: request.body,
          header: request.headers["webhook-signature"] ?? "",
          secret: Self.secret))
      #expect(request.body == f.sink.lines[Int(id.dropFirst(4))! - 1])
    }
    await f.service.shutdown()
    let cursors = try DeliveryCursors(path: directory + "/log.cursors")
    #expect(cursors.cursor("hook")?.delivered == 7)
  }

  @Test func subscriberDownAtFirstAndRestartedMidwayGetsEveryEventInOrder() async throws {
    let directory = temporaryDirectory()
    let failing = RecordingTransport { (_, _) throws(TransportError) in
      throw .cannotConnect("refused")
    }
    let f = try await WebhookFixture.make(
      directory: directory, transport: { _ in failing },
      subscribers: try subscribers(in: directory),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    for _ in 0..<3 { _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating) }
    await f.waitForEvents(7)
    await f.clock.waitForSleepers(count: 1)
    #expect(f.clock.pendingSleeps.first == 5_000)
    await f.clock.advance(by: .milliseconds(5_000))
    await failing.waitForRequests(2)
    await f.clock.waitForSleepers(count: 1)
    #expect(f.clock.pendingSleeps.first == 300_000)
    #expect(failing.seqs == [2, 2])
    await f.service.shutdown()

    // A new process with the same files; the subscriber is still down once, then up.
    let recovering = RecordingTransport { (_, n) throws(TransportError) in
      if n == 1 { throw .timedOut }
      return TransportResponse(status: 200)
    }
    let g = try await WebhookFixture.make(
      replaying: f.sink.lines, directory: directory, issueAdmin: false,
      transport: { _ in recovering },
      subscribers: try SubscriberFile(path: directory + "/log.subscribers"),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    await g.clock.waitForSleepers(count: 1)
    await g.clock.advance(by: .milliseconds(5_000))
    await recovering.waitForRequests(7)
    _ = await g.request("POST", "/actions", key: f.adminKey, body: Self.rating)
    await recovering.waitForRequests(9)
    #expect(recovering.seqs == [2, 2, 3, 4, 5, 6, 7, 8, 9])
    await g.service.shutdown()
    #expect(try DeliveryCursors(path: directory + "/log.cursors").cursor("hook")?.delivered == 9)
  }

  @Test func goneDisablesTheSubscriberForGoodUntilEnabled() async throws {
    let directory = temporaryDirectory()
    let gone = RecordingTransport { _, _ in TransportResponse(status: 410) }
    let f = try await WebhookFixture.make(
      directory: directory, transport: { _ in gone }, subscribers: try subscribers(in: directory),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating)
    await gone.waitForRequests(1)
    await waitUntil { f.service.deliveries.statuses(lastSeq: 0).first?.disabled != nil }
    #expect(f.service.deliveries.statuses(lastSeq: 0).first?.disabled == "410 Gone")
    await f.waitForEvents(3)
    let listing = await f.request("GET", "/admin/subscribers", key: f.adminKey)
    #expect(listing.json["subscribers"]?.array?.first?["state"] == "disabled")
    let metrics = await f.request("GET", "/metrics", key: f.adminKey)
    #expect(metrics.text.contains("susi_webhook_subscriber_disabled{subscriber=\"hook\"} 1\n"))
    #expect(metrics.text.contains("susi_webhook_delivery_backlog{subscriber=\"hook\"} 2\n"))
    await f.service.shutdown()

    // After a restart it stays disabled.
    let quiet = RecordingTransport()
    let g = try await WebhookFixture.make(
      replaying: f.sink.lines, directory: directory, issueAdmin: false, transport: { _ in quiet },
      subscribers: try SubscriberFile(path: directory + "/log.subscribers"),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    _ = await g.request("POST", "/actions", key: f.adminKey, body: Self.rating)
    await g.waitForEvents(5)
    #expect(g.service.deliveries.statuses(lastSeq: 0).first?.disabled == "410 Gone")
    // Enabling resumes with the event that was refused.
    #expect(
      await g.request("POST", "/admin/subscribers/hook/enable", key: f.adminKey).status == 200)
    await quiet.waitForRequests(4)
    #expect(quiet.seqs == [2, 3, 4, 5])
    #expect(gone.requests.count == 1)
  }

  @Test func hangingSubscriberDoesNotDelayAnother() async throws {
    let directory = temporaryDirectory()
    let hanging = RecordingTransport { (_, _) throws(TransportError) in
      do {
        try await Task.sleep(for: .seconds(3600))
      } catch {
        throw .cancelled
      }
      return TransportResponse(status: 200)
    }
    let healthy = RecordingTransport()
    let f = try await WebhookFixture.make(
      directory: directory, transport: { $0.id == "slow" ? hanging : healthy },
      subscribers: try subscribers(in: directory, ids: ["slow", "fast"]),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    for _ in 0..<5 { _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating) }
    await healthy.waitForRequests(10)
    #expect(healthy.seqs == Array(2...11))
    #expect(hanging.seqs == [2])
    // Shutting down waits for the attempt in progress only as long as the grace period.
    async let stopped: Void = f.service.shutdown(grace: 5_000)
    await f.clock.waitForSleepers(count: 1)
    await f.clock.advance(by: .milliseconds(5_000))
    await stopped
    #expect(try DeliveryCursors(path: directory + "/log.cursors").cursor("slow")?.delivered == 1)
    #expect(try DeliveryCursors(path: directory + "/log.cursors").cursor("fast")?.delivered == 11)
  }

  @Test func retryAfterAndRedirectsAreFailuresThatWait() async throws {
    let directory = temporaryDirectory()
    let answers = RecordingTransport { _, n in
      switch n {
      case 1: TransportResponse(status: 503, headers: ["Retry-After": "120"])
      case 2: TransportResponse(status: 302, headers: ["Location": "http://127.0.0.1:9/elsewhere"])
      default: TransportResponse(status: 200)
      }
    }
    let f = try await WebhookFixture.make(
      directory: directory, transport: { _ in answers },
      subscribers: try subscribers(in: directory),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating)
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

  @Test func subscriberAddedOverTheAPIGetsLaterEventsAndListsWithoutSecret() async throws {
    let directory = temporaryDirectory()
    let transport = RecordingTransport()
    let f = try await WebhookFixture.make(
      directory: directory, transport: { _ in transport },
      subscribers: try SubscriberFile(path: directory + "/log.subscribers"),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating)
    await f.waitForEvents(3)
    let added = await f.request(
      "POST", "/admin/subscribers", key: f.adminKey,
      body: #"{"url":"http://127.0.0.1:9/new","events":["*"]}"#)
    #expect(added.status == 201)
    let secret = try #require(added.json["secret"]?.string.flatMap(WebhookSecret.init))
    let id = try #require(added.json["id"]?.string)
    #expect(id.hasPrefix("sub_"))
    _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating)
    await transport.waitForRequests(2)
    #expect(transport.seqs == [4, 5])
    let request = transport.requests[0]
    #expect(
      WebhookSignature.verify(
        id: request.headers["webhook-id"]!, timestamp: request.headers["webhook-timestamp"]!,
        body: request.body,
        header: request.headers["webhook-signature"]!, secret: secret))
    let listing = await f.request("GET", "/admin/subscribers", key: f.adminKey)
    #expect(!listing.text.contains(secret.text))
    #expect(listing.json["subscribers"]?.array?.first?["delivered"] == 5)
    let file = try String(contentsOfFile: directory + "/log.subscribers", encoding: .utf8)
    #expect(file.contains(secret.text))
    let mode = try FileManager.default.attributesOfItem(atPath: directory + "/log.subscribers")[
      .posixPermissions]
    #expect(mode as? Int == 0o600)
    // Bad registrations are refused.
    for body in [
      #"{"url":"ftp://x"}"#, #"{"url":"http://x","events":["nope"]}"#,
      #"{"url":"http://x","secret":"short"}"#,
    ] {
      #expect(
        await f.request("POST", "/admin/subscribers", key: f.adminKey, body: body).status == 400,
        "\(body)")
    }
    #expect(
      await f.request(
        "POST", "/admin/subscribers", key: f.adminKey, body: #"{"id":"\#(id)","url":"http://x"}"#
      ).status == 409)
    #expect(await f.request("DELETE", "/admin/subscribers/\(id)", key: f.adminKey).status == 200)
    #expect(await f.request("DELETE", "/admin/subscribers/\(id)", key: f.adminKey).status == 404)
    #expect(try SubscriberFile(path: directory + "/log.subscribers").subscribers.isEmpty)
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

  /// Waits (yielding, not sleeping) until `condition` holds; after a minute of real time it
  /// records a failure instead of hanging the run.
  func waitUntil(
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
  ) async {
    let deadline = ContinuousClock.now + .seconds(60)
    while !condition() {
      guard ContinuousClock.now < deadline else {
        Issue.record("the condition did not hold within 60 s", sourceLocation: sourceLocation)
        return
      }
      await Task.yield()
    }
  }
}
