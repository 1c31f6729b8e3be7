import Foundation
import SusiJSON
import Testing

@testable import SusiServer

/// Several servers on one state directory, as `susi server` and the built-in server of each
/// running `susi` are: no change overwrites another's, and each sees what the others saved.
@Suite struct SharedStateTests {
  @Test func twoServersOnOneStateDirectoryLoseNoAccount() throws {
    let state = try temporaryDirectory().appendingPathComponent("server")
    let first = try TestServer(stateDirectory: state)
    let second = try TestServer(stateDirectory: state)
    _ = try first.login("ada@example.com")
    let bobToken = try second.login("bob@example.com")
    _ = try first.login("cy@example.com")
    // The first server accepts the second's token without a restart.
    #expect(
      try first.json("/aaa/login.json", [("checkLogin", "true"), ("access_token", bobToken)])[
        "loggedIn"] == true)
    let restarted = try TestServer(stateDirectory: state)
    for email in ["ada@example.com", "bob@example.com", "cy@example.com"] {
      let reply = restarted.send(
        "/aaa/login.json",
        [("login", email), ("password", "Secret#123"), ("type", "access-token")])
      #expect(reply.status == 200, "\(email): \(reply.text)")
    }
  }

  @Test func chatMemoryIsSavedAndSeenByEveryServerOnTheDirectory() throws {
    let state = try temporaryDirectory().appendingPathComponent("server")
    let first = try TestServer(stateDirectory: state)
    let second = try TestServer(stateDirectory: state)
    _ = try first.json("/susi/chat.json", [("q", "hello")])
    _ = try second.json("/susi/chat.json", [("q", "what is your name")])
    let seen = try first.json("/susi/memory.json")
    #expect(
      seen["cognitions"]?.array?.compactMap { $0["query"]?.string } == [
        "what is your name", "hello",
      ])
    let restarted = try TestServer(stateDirectory: state)
    let remembered = try restarted.json("/susi/memory.json")
    #expect(remembered["cognitions"]?.array?.count == 2)
  }

  @Test func withoutAStateDirectoryMemoryStaysInMemory() throws {
    let server = try TestServer()
    _ = try server.json("/susi/chat.json", [("q", "hello")])
    #expect(try server.json("/susi/memory.json")["cognitions"]?.array?.count == 1)
  }
}

/// The built-in server's links name the port it listens on; `susi` asks for a fixed one so they
/// still work after a restart, and takes any free port when that one is taken.
@Suite struct StableAddressTests {
  @Test func linksStayValidAfterARestartOnTheSamePort() async throws {
    var configuration = ServerConfiguration(seed: 3)
    let first = try await EmbeddedServer.start(configuration)
    let reply = try await EmbeddedServerTests.fetch(
      EmbeddedServerTests.url(first, "/susi/chat.json?q=headlines"))
    let text = String(decoding: reply.body, as: UTF8.self)
    let link = "http://127.0.0.1:\(first.port)/pages/susi.html"
    #expect(text.contains(link.replacingOccurrences(of: "/", with: "\\/")) || text.contains(link))
    await first.stop()

    // Restarted on the port it had: the old link works again.
    configuration.port = first.port
    let second = try await EmbeddedServer.start(configuration, fallBackToAnyPort: true)
    #expect(second.port == first.port)
    let page = try await EmbeddedServerTests.fetch(try #require(URL(string: link)))
    #expect(page.status == 200)

    // The port is taken now: another server falls back to a free one instead of failing.
    let third = try await EmbeddedServer.start(configuration, fallBackToAnyPort: true)
    #expect(third.port != second.port)
    await #expect(throws: (any Error).self) {
      _ = try await EmbeddedServer.start(configuration)
    }
    await second.stop()
    await third.stop()
  }

  @Test func theBuiltInServerInSusiHasAFixedDefaultPort() {
    #expect(EmbeddedServer.defaultPort == 7874)
  }
}
