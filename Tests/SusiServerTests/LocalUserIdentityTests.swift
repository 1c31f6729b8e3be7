import SusiHTTPServer
import SusiJSON
import Testing

@testable import SusiServer

/// Callers on this machine's loopback share one address: the server tells them apart by the
/// local user their process runs as, so no user reads another's anonymous memory.
@Suite struct LocalUserIdentityTests {
  func chat(_ server: TestServer, _ query: String, user: UInt32?) throws -> JSONObject {
    try server.json(
      "/susi/chat.json", [("q", query)], headers: [("User-Agent", "susi")],
      remoteAddress: "127.0.0.1", loopbackUserID: user)
  }

  func memory(_ server: TestServer, user: UInt32?) throws -> [String] {
    let reply = try server.json(
      "/susi/memory.json", headers: [("User-Agent", "susi")], remoteAddress: "127.0.0.1",
      loopbackUserID: user)
    return reply["cognitions"]?.array?.compactMap { $0["query"]?.string } ?? []
  }

  @Test func anotherLocalUserDoesNotSeeMyAnonymousMemory() throws {
    let server = try TestServer()
    _ = try chat(server, "hi", user: 1000)
    #expect(try memory(server, user: 1000) == ["hi"])
    #expect(try memory(server, user: 1001) == [])
  }

  @Test func theLocalUserIsPartOfTheAnonymousName() throws {
    let server = try TestServer()
    let mine = try chat(server, "hi", user: 1000)["session"]?["identity"]?["name"]?.string
    let theirs = try chat(server, "hi", user: 1001)["session"]?["identity"]?["name"]?.string
    #expect(mine?.hasPrefix("127.0.0.1~u1000_") == true)
    #expect(theirs?.hasPrefix("127.0.0.1~u1001_") == true)
    // A remote caller, or one the kernel could not name, keeps the real server's `<ip>_<hash>`.
    let remote = try server.json("/susi/chat.json", [("q", "hi")])["session"]?["identity"]?["name"]
    #expect(remote?.string?.hasPrefix("203.0.113.7_") == true)
  }
}
