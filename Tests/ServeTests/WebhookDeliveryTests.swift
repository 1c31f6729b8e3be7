import Foundation
import SusiClock
import SusiCore
import SusiDelivery
import SusiHTTPClient
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiRunner
import SusiServe
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// Outbound deliveries as the HTTP API shows and changes them: the subscriber listing, the
/// metrics, and subscribers added, enabled and removed over `/admin/subscribers`.
@Suite struct WebhookDeliveryTests {
  static let rating =
    #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9}}"#
  static let secret = WebhookSecret.generate()

  /// A subscriber file in `directory` holding one subscriber that gets every event after seq 1.
  func subscribers(in directory: String) throws -> SubscriberFile {
    let file = try SubscriberFile(path: directory + "/log.subscribers")
    try file.add(
      Subscriber(id: "hook", url: "http://127.0.0.1:9/hook", secret: Self.secret, after: 1))
    return file
  }

  @Test func aGoneSubscriberListsAndCountsAsDisabledAndIsEnabledOverTheAPI() async throws {
    let directory = temporaryDirectory()
    let goneOnce = RecordingTransport { _, n in TransportResponse(status: n == 1 ? 410 : 200) }
    let f = try await WebhookFixture.make(
      directory: directory, transport: { _ in goneOnce },
      subscribers: try subscribers(in: directory),
      cursors: try DeliveryCursors(path: directory + "/log.cursors"))
    _ = await f.request("POST", "/actions", key: f.adminKey, body: Self.rating)
    await goneOnce.waitForRequests(1)
    await waitUntil("the subscriber is disabled") {
      f.service.deliveries.statuses(lastSeq: 0).first?.disabled != nil
    }
    await f.waitForEvents(3)
    let listing = await f.request("GET", "/admin/subscribers", key: f.adminKey)
    #expect(listing.json["subscribers"]?.array?.first?["state"] == "disabled")
    let metrics = await f.request("GET", "/metrics", key: f.adminKey)
    #expect(metrics.text.contains("susi_webhook_subscriber_disabled{subscriber=\"hook\"} 1\n"))
    #expect(metrics.text.contains("susi_webhook_delivery_backlog{subscriber=\"hook\"} 2\n"))
    #expect(
      metrics.text.contains(
        "susi_webhook_deliveries_total{subscriber=\"hook\",outcome=\"gone\"} 1\n"))
    // Enabling resumes with the event that was refused.
    #expect(
      await f.request("POST", "/admin/subscribers/hook/enable", key: f.adminKey).status == 200)
    await goneOnce.waitForRequests(3)
    #expect(goneOnce.seqs == [2, 2, 3])
    await f.service.shutdown()
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
}
