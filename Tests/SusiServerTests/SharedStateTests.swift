import Foundation
import SusiCrypto
import SusiHTTPServer
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

  @Test func concurrentSignupsOnTwoServersKeepEveryAccount() async throws {
    let state = try temporaryDirectory().appendingPathComponent("server")
    let servers = [try TestServer(stateDirectory: state), try TestServer(stateDirectory: state)]
    await withTaskGroup(of: Void.self) { group in
      for worker in 0..<4 {
        group.addTask {
          for n in 0..<10 {
            _ = servers[worker % 2].send(
              "/aaa/signup.json",
              [("signup", "u\(worker)-\(n)@example.com"), ("password", "Secret#123")])
          }
        }
      }
    }
    let accounts = try String(
      contentsOf: state.appendingPathComponent("accounts.json"), encoding: .utf8)
    for worker in 0..<4 {
      for n in 0..<10 { #expect(accounts.contains("u\(worker)-\(n)@example.com")) }
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

  /// A server remembers its own chat without reading it back when nothing came between; when
  /// another server's chats did, it reads them, so every server keeps the file's order.
  @Test func ownAndOtherServersChatsAreRememberedInTheFilesOrder() throws {
    let state = try temporaryDirectory().appendingPathComponent("server")
    let first = try TestServer(stateDirectory: state)
    let second = try TestServer(stateDirectory: state)
    let queries = ["hello", "hi", "hey", "what is your name", "good morning", "thanks"]
    // Each server in turn, after both have read the file once; then one server twice.
    for (n, query) in queries.enumerated() {
      _ = try (n % 2 == 0 || n == queries.count - 1 ? first : second).json(
        "/susi/chat.json", [("q", query)])
    }
    let expected = Array(queries.reversed())
    for server in [first, second, try TestServer(stateDirectory: state)] {
      let memory = try server.json("/susi/memory.json")
      #expect(memory["cognitions"]?.array?.compactMap { $0["query"]?.string } == expected)
    }
  }

  /// Another process's append that lands between this one's catching up and its own append is
  /// read, not skipped over.
  @Test func anAppendByAnotherProcessInBetweenIsNotSkipped() throws {
    let directory = try temporaryDirectory().appendingPathComponent("server")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let mine = StateStore(directory: directory)
    let other = StateStore(directory: directory)
    func cognition(_ query: String) -> ConversationMemory.Cognition {
      ConversationMemory.Cognition(
        date: Date(timeIntervalSince1970: 1_800_000_000), envelope: ["query": .string(query)])
    }
    var state = ServerState(random: SeededRandom(seed: 1))
    let first = try #require(mine.append(cognition("first"), for: "me"))
    mine.remember(cognition("first"), for: "me", appended: first, &state)
    let own = try #require(mine.append(cognition("own"), for: "me"))
    mine.remember(cognition("own"), for: "me", appended: own, &state)
    _ = try #require(other.append(cognition("theirs"), for: "them"))
    let late = try #require(mine.append(cognition("late"), for: "me"))
    mine.remember(cognition("late"), for: "me", appended: late, &state)
    let remembered = state.memory.all.map {
      "\($0.client) \($0.cognition.envelope["query"]?.string ?? "")"
    }
    #expect(Set(remembered) == ["me first", "me own", "them theirs", "me late"])
    #expect(state.memoryPosition.offset == late.end)
  }

  @Test func theMemoryFileIsCompactedToWhatIsKept() throws {
    let state = try temporaryDirectory().appendingPathComponent("server")
    let server = try TestServer(stateDirectory: state)
    let file = state.appendingPathComponent("memory.jsonl").path
    var chats = 0
    var largest = 0
    // Until the file has been compacted once: it shrinks back to one client's 100 replies.
    while chats < 100_000 {
      _ = server.send("/susi/chat.json", [("q", "hello \(chats)")])
      chats += 1
      let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
      if size < largest { break }
      largest = size
    }
    #expect(largest > StateStore.memoryCompactionBytes * 9 / 10, "compacted only once it was large")
    let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
    #expect(lines.count <= ConversationMemory.perIdentity + 1)
    let newest = try server.json("/susi/memory.json", [("cognitions", "1")])
    #expect(newest["cognitions"]?.array?.first?["query"] == .string("hello \(chats - 1)"))
    let restarted = try TestServer(stateDirectory: state)
    #expect(try restarted.json("/susi/memory.json")["cognitions_remaining"] == 90)
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
