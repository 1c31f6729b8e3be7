import Foundation
import SusiClock
import SusiHTTPTesting
import SusiTesting
import Testing

@testable import SusiHTTPServer

/// Which local user a loopback client runs as: the server asks the kernel, once per connection,
/// when its configuration says so.
@Suite struct LoopbackPeerTests {
  /// Answers the uid the server saw for the client, or `none`.
  let whoHandler = ClosureHandler { request in
    HTTPResponse(
      status: 200, contentType: "text/plain",
      body: request.loopbackUserID.map { String($0) } ?? "none")
  }

  func configuration(identifies: Bool, host: String = "127.0.0.1") -> HTTPServer.Configuration {
    var configuration = HTTPServer.Configuration(host: host, clock: ManualTimeSource())
    configuration.identifiesLoopbackUsers = identifies
    return configuration
  }

  @Test func aClientOnLoopbackIsTheUserWhoseProcessConnected() async throws {
    try await withServer(configuration(identifies: true), handler: whoHandler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      defer { client.close() }
      #expect(try client.request("GET", "/").text == String(getuid()))
    }
  }

  @Test func nothingIsLookedUpUnlessTheServerAsks() async throws {
    try await withServer(configuration(identifies: false), handler: whoHandler) { _, port in
      let client = try LoopbackHTTPClient(port: port)
      defer { client.close() }
      #expect(try client.request("GET", "/").text == "none")
    }
  }

  /// Run as root (as CI does), the test connects once more as the user `nobody`, through curl
  /// started with `setpriv`: the server must see that uid, not its own.
  @Test(.enabled(if: getuid() == 0)) func anotherLocalUserIsToldApart() async throws {
    try await withServer(configuration(identifies: true), handler: whoHandler) { _, port in
      // Started by the tests' own spawner: Foundation's `Process.run` can crash the test run
      // while other tests open and close descriptors.
      let curl = try await SusiBinary(path: "/usr/bin/setpriv").run([
        "--reuid=65534", "--regid=65534", "--clear-groups", "curl", "-s",
        "http://127.0.0.1:\(port)/",
      ])
      #expect(curl.status == 0)
      #expect(curl.stdout == "65534")
    }
  }

  @Test func endpointsAreSpelledAsTheKernelPrintsThem() {
    let v4 = LoopbackPeer.Endpoint(address: [127, 0, 0, 1], port: 8080)
    #expect(v4.kernelText == "0100007F:1F90")
    #expect(v4.isLoopback)
    let v6 = LoopbackPeer.Endpoint(address: [UInt8](repeating: 0, count: 15) + [1], port: 80)
    #expect(v6.kernelText == "00000000000000000000000001000000:0050")
    #expect(v6.isLoopback)
    let mapped = LoopbackPeer.Endpoint(
      address: [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 9], port: 1)
    #expect(mapped.isLoopback)
    #expect(!LoopbackPeer.Endpoint(address: [192, 0, 2, 1], port: 1).isLoopback)
  }
}
