import Foundation
import SusiCore
import SusiHTTPTesting
import Testing

@testable import SusiHTTPClient
@testable import SusiRunner

/// The guard against requests to internal addresses: every spelling of an internal address is
/// refused, the allowed origins and the private-targets switch let requests through, and the
/// runner reports a refusal as a `requestFailed` naming the URL.
@Suite(.hangLimit)
struct TargetPolicyTests {
  static let internalHosts = [
    "127.0.0.1", "127.1", "2130706433", "0177.0.0.1", "0x7f.0.0.1", "0x7f000001", "localhost",
    "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]",
    "[64:ff9b::7f00:1]", "[2002:7f00:1::]", "169.254.169.254", "2852039166", "[::ffff:a9fe:a9fe]",
    "[fe80::1]", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", "100.64.0.1",
    "[fd00::1]", "[fc00::1]", "[fd00:ec2::254]", "0.0.0.0", "0", "[::]", "224.0.0.1",
    "[ff02::1]", "255.255.255.255", "192.0.0.192",
  ]

  @Test(arguments: internalHosts)
  func internalAddressesAreRefusedInEverySpelling(host: String) {
    let url = "http://\(host):8080/latest/meta-data?x=1"
    #expect(throws: TransportError.self) { try TargetPolicy().check(url) }
    do {
      _ = try TargetPolicy().check(url)
    } catch {
      guard case .refused(let message) = error else {
        Issue.record("\(host): \(error) is not a refusal")
        return
      }
      #expect(message.hasPrefix("http://\(host):8080/latest/meta-data points at a"))
      #expect(!message.contains("x=1"))
    }
  }

  @Test(arguments: ["93.184.216.34", "[2606:4700::1111]", "1.1.1.1", "172.32.0.1", "8.8.8.8"])
  func publicAddressesPass(host: String) throws {
    let addresses = try TargetPolicy().check("http://\(host)/")
    #expect(addresses.count == 1)
    #expect(addresses.allSatisfy { $0.internalKind == nil })
  }

  @Test func allowedOriginsAndThePrivateSwitchLetInternalAddressesThrough() throws {
    let allowed = TargetPolicy(allowedOrigins: ["http://127.0.0.1:4000/"])
    #expect(try allowed.check("http://127.0.0.1:4000/page").count == 1)
    #expect(throws: TransportError.self) { try allowed.check("http://127.0.0.1:4001/page") }
    #expect(throws: TransportError.self) { try allowed.check("https://127.0.0.1:4000/page") }
    #expect(try TargetPolicy(allowsPrivateTargets: true).check("http://[::1]:9/").count == 1)
  }

  @Test func originsAreSpelledOneWay() {
    #expect(TargetPolicy.origin(of: "HTTP://Example.COM/a") == "http://example.com:80")
    #expect(TargetPolicy.origin(of: "https://user@[::1]/") == "https://[::1]:443")
    #expect(TargetPolicy.origin(of: "http://public.example@127.0.0.1:81/") == "http://127.0.0.1:81")
    #expect(TargetPolicy.origin(of: "ftp://x/") == nil)
  }

  // MARK: Through the transport and the runner

  @Test func theTransportRefusesBeforeConnectingAndChecksEveryRedirectHop() async throws {
    let target = try #require(LoopbackServer { _ in LoopbackServer.reply(200, body: [1]) })
    defer { target.stop() }
    let redirecting = try #require(
      LoopbackServer { _ in LoopbackServer.reply(302, ["Location: \(target.baseURL)/secret"]) })
    defer { redirecting.stop() }
    let transport = SocketTransport()
    let direct = TransportRequest(url: target.baseURL + "/secret", targetPolicy: TargetPolicy())
    await #expect(throws: TransportError.self) { try await transport.send(direct) }
    #expect(target.requests.isEmpty)

    var hop = TransportRequest(url: redirecting.baseURL + "/go", followsRedirects: true)
    hop.targetPolicy = TargetPolicy(allowedOrigins: [redirecting.baseURL])
    do {
      _ = try await transport.send(hop)
      Issue.record("the redirect to a loopback address was followed")
    } catch {
      #expect(
        error
          == .refused(
            "\(target.baseURL)/secret points at a loopback address (127.0.0.1), which is refused; --allow-private-targets (SUSI_ALLOW_PRIVATE_TARGETS=1) allows it for local testing"
          ))
    }
    #expect(redirecting.requests.count == 1)
    #expect(target.requests.isEmpty)
  }

  /// A runner on the real transport whose embedded server is `embedded`.
  static func runner(embedded: String, policy: TargetPolicy = TargetPolicy()) -> (
    SusiRunner, String
  ) {
    let folder = Harness.makeTemporaryFolder()
    var configuration = RunnerConfiguration(
      stateDirectory: folder, embeddedServerURL: embedded, websearchURL: "http://127.0.0.1:9/")
    configuration.targetPolicy = policy
    configuration.retryPolicy = .never
    return (SusiRunner(configuration: configuration), folder)
  }

  static func result(_ runner: SusiRunner, _ effect: Effect) async -> Action {
    await withCheckedContinuation { continuation in
      runner.start(effect, cause: 7) { continuation.resume(returning: $0) }
    }
  }

  @Test func previewsAndImagesOfInternalPagesFailNamingTheURLButTheServersOwnPagesPreview()
    async throws
  {
    let page = Array("<html><head><title>Internal admin</title></head></html>".utf8)
    let inside = try #require(
      LoopbackServer { _ in LoopbackServer.reply(200, ["Content-Type: text/html"], body: page) })
    defer { inside.stop() }
    let own = try #require(
      LoopbackServer { _ in LoopbackServer.reply(200, ["Content-Type: text/html"], body: page) })
    defer { own.stop() }
    let (runner, folder) = Self.runner(embedded: own.baseURL)
    defer { try? FileManager.default.removeItem(atPath: folder) }

    for effect in [
      Effect.fetchLinkPreview(url: inside.baseURL + "/admin?token=1"),
      .cacheImage(url: inside.baseURL + "/admin.png"),
    ] {
      let result = await Self.result(runner, effect)
      let failure = try #require(result.failure)
      #expect(failure.kind == .network)
      #expect(failure.message.hasPrefix(inside.baseURL + "/admin"))
      #expect(failure.message.contains("loopback address (127.0.0.1), which is refused"))
      #expect(!failure.message.contains("token"))
    }
    #expect(inside.requests.isEmpty)

    let preview = await Self.result(runner, .fetchLinkPreview(url: own.baseURL + "/page"))
    guard case .linkPreviewLoaded(let loaded) = preview else {
      Issue.record("the embedded server's page did not preview: \(preview)")
      return
    }
    #expect(loaded.title == "Internal admin")
    await runner.shutdown()
  }

  @Test func allowingPrivateTargetsLetsPreviewsReachThem() async throws {
    let page = Array("<title>Local test page</title>".utf8)
    let inside = try #require(
      LoopbackServer { _ in LoopbackServer.reply(200, ["Content-Type: text/html"], body: page) })
    defer { inside.stop() }
    let (runner, folder) = Self.runner(
      embedded: "http://127.0.0.1:9", policy: TargetPolicy(allowsPrivateTargets: true))
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let preview = await Self.result(runner, .fetchLinkPreview(url: inside.baseURL + "/"))
    guard case .linkPreviewLoaded(let loaded) = preview else {
      Issue.record("no preview: \(preview)")
      return
    }
    #expect(loaded.title == "Local test page")
    await runner.shutdown()
  }
}
