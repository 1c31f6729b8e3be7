import Foundation
import SusiHTTP
import SusiHTTPClient
import SusiHTTPTypes
import SusiJSON
import SusiRunner
import SusiWebhook
import Testing

/// Subscriber URLs may not point into the machine or its network: refused when registered, and
/// every delivery attempt carries the policy that the transport enforces after resolving.
@Suite struct WebhookTargetTests {
  @Test func internalSubscriberURLsAreRefusedWhenRegistered() async throws {
    let f = try await WebhookFixture.make(targets: TargetPolicy())
    for url in [
      "http://127.0.0.1:9/hook", "http://[::1]/hook", "http://169.254.169.254/latest/meta-data",
      "http://10.0.0.7/hook", "http://2130706433/hook", "http://0x7f.1/hook",
      "http://[::ffff:127.0.0.1]/hook", "http://localhost:8080/hook",
    ] {
      let response = await f.request(
        "POST", "/admin/subscribers", key: f.adminKey, body: #"{"url":"\#(url)"}"#)
      #expect(response.status == 400, "\(url)")
      #expect(response.json["error"]?["code"] == "invalid_url", "\(url)")
    }
    let list = await f.request("GET", "/admin/subscribers", key: f.adminKey)
    #expect(list.json["subscribers"] == [])
    // A public address is accepted (no request is made when registering).
    let accepted = await f.request(
      "POST", "/admin/subscribers", key: f.adminKey, body: #"{"url":"http://93.184.216.34/hook"}"#)
    #expect(accepted.status == 201)
  }

  @Test func deliveriesToAnInternalAddressAreRefusedBeforeAnyConnection() async throws {
    let directory = temporaryDirectory()
    let file = try SubscriberFile(path: directory + "/log.subscribers")
    // Written straight to the file, as an operator could: the check at delivery still holds.
    let listener = try TargetTestListener()
    try file.add(
      Subscriber(
        id: "inside", url: "http://127.0.0.1:\(listener.port)/hook", events: [],
        secret: WebhookSecret.generate(), after: 0))
    let f = try await WebhookFixture.make(
      directory: directory, transport: { _ in SocketTransport() }, subscribers: file,
      cursors: try DeliveryCursors(path: directory + "/log.cursors"), targets: TargetPolicy())
    _ = await f.request(
      "POST", "/actions", key: f.adminKey,
      body: #"{"type":"submitRating","payload":{"group":"K","skill":"S","stars":9}}"#)
    let status = try await f.waitForSubscriberError("inside")
    #expect(status.contains("loopback"), "\(status)")
    #expect(listener.acceptedCount == 0)
    await f.service.shutdown()
  }
}

/// A listening socket on 127.0.0.1 that only counts the connections it is offered.
final class TargetTestListener: Sendable {
  let port: Int
  private let fd: Int32

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    self.fd = fd
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(fd, pointer, length) == 0 && listen(fd, 8) == 0
          && getsockname(fd, pointer, &length) == 0
      }
    }
    guard bound else { throw CocoaError(.fileReadUnknown) }
    port = Int(UInt16(bigEndian: address.sin_port))
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
  }

  deinit { close(fd) }

  /// Connections waiting to be accepted: any at all means a request was attempted.
  var acceptedCount: Int {
    var count = 0
    while true {
      let client = accept(fd, nil, nil)
      if client < 0 { break }
      close(client)
      count += 1
    }
    return count
  }
}

extension WebhookTargetTests {
  @Test func theRefusalNamesTheURLAndHowToAllowIt() async throws {
    let f = try await WebhookFixture.make(targets: TargetPolicy())
    let response = await f.request(
      "POST", "/admin/subscribers", key: f.adminKey, body: #"{"url":"http://169.254.169.254/x"}"#)
    let message = try #require(response.json["error"]?["message"]?.string)
    #expect(message.hasPrefix("http://169.254.169.254/x points at a link-local"), "\(message)")
    #expect(message.contains("--allow-private-targets"))
  }
}
