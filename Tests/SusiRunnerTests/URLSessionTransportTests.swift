import Foundation
import SusiHTTPClient
import Testing

/// What only URLSession does differently; the rest is in `TransportContractTests`.
@Suite(.timeLimit(.minutes(1)))
struct URLSessionTransportTests {
  @Test func aSilentServerTimesOutAfterTheIdleTimeout() async throws {
    let server = try TransportContractTests.server()
    defer { server.stop() }
    let start = ContinuousClock.now
    await #expect(throws: TransportError.timedOut) {
      // Linux's URLSession counts whole seconds; a fraction is rounded up, never down to zero.
      try await URLSessionTransport(idleTimeout: 0.2, resourceTimeout: 5).send(
        TransportContractTests.request(server, "/silent") { $0.idleTimeout = 0.2 })
    }
    #expect(ContinuousClock.now - start >= .milliseconds(900))
  }
}
