import Foundation
import SusiDelivery
import SusiHTTPClient
import SusiHTTPTesting
import SusiTesting
import Testing

/// Every delivery attempt carries the target policy, which the transport enforces after
/// resolving the subscriber's name: an internal address is refused before any connection.
@Suite struct DeliveryTargetTests {
  @Test func deliveriesToAnInternalAddressAreRefusedBeforeAnyConnection() async throws {
    let directory = FileManagerTestFolder().path
    let file = try SubscriberFile(path: directory + "/log.subscribers")
    // Written straight to the file, as an operator could: the check at delivery still holds.
    let listener = try #require(SilentServer())
    try file.add(
      Subscriber(
        id: "inside", url: "http://127.0.0.1:\(listener.port)/hook", events: [],
        secret: WebhookSecret.generate(), after: 0))
    let f = try await DeliveryFixture.make(
      transport: { _ in SocketTransport() }, subscribers: file,
      cursors: try DeliveryCursors(path: directory + "/log.cursors"), targets: TargetPolicy())
    try await f.sendRating()
    var error: String?
    await waitUntil("the subscriber reports a failed attempt") {
      error = f.deliveries.statuses(lastSeq: 0).first { $0.id == "inside" }?.lastError
      return error != nil
    }
    let status = try #require(error)
    #expect(status.contains("loopback"), "\(status)")
    #expect(!listener.waitForConnection(timeout: 0), "no connection was even attempted")
    await f.shutdown()
  }
}
