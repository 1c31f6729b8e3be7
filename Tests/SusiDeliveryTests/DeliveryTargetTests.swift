import Foundation
import SusiDelivery
import SusiHTTPClient
import SusiTesting
import Testing

/// Every delivery attempt carries the target policy, which the transport enforces after
/// resolving the subscriber's name: an internal address is refused before any connection.
@Suite struct DeliveryTargetTests {
  @Test func deliveriesToAnInternalAddressAreRefusedBeforeAnyConnection() async throws {
    let directory = FileManagerTestFolder().path
    let file = try SubscriberFile(path: directory + "/log.subscribers")
    // Written straight to the file, as an operator could: the check at delivery still holds.
    let listener = try TargetTestListener()
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
    #expect(listener.acceptedCount == 0)
    await f.shutdown()
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
