import Foundation
import SusiAccess
import SusiCore
import SusiEventLog
import SusiHTTPTesting
import SusiServe
import SusiTesting
import Testing

/// The built `susi` binary: `susi serve keys init`, `susi serve`, a request, SIGTERM.
@Suite struct WebhookServeCommandTests {
  let susi: SusiBinary

  /// Fails every test of the suite, never skips it, when the binary is missing.
  init() throws {
    susi = try SusiBinary.built()
  }

  /// Runs `susi` to completion; its exit status and stdout.
  func run(_ arguments: [String]) async throws -> (Int32, String) {
    let run = try await susi.run(arguments)
    return (run.status, run.stdout)
  }

  /// Starts `susi serve` on a free loopback port; the process and its port.
  func startServer(state: String) async throws -> (SusiProcess, Int) {
    let server = try susi.start(["serve", "--state-dir", state, "--port", "0"])
    let url = try await onThread { try server.nextLine() } ?? ""
    let port = try #require(url.split(separator: ":").last.flatMap { Int($0) }, "printed: \(url)")
    #expect(url == "http://127.0.0.1:\(port)")
    return (server, port)
  }

  @Test func serveAnswersWithTheInitialKeyAndStopsCleanlyOnSIGTERM() async throws {
    let state = temporaryDirectory()
    let (initStatus, keyLine) = try await run(["serve", "keys", "init", "--state-dir", state])
    #expect(initStatus == 0)
    let key = keyLine.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(key.hasPrefix("susi_"))

    let (server, port) = try await startServer(state: state)
    defer { server.stop() }
    let answer = await onThread {
      let client = try? LoopbackHTTPClient(port: port)
      defer { client?.close() }
      return try? client?.request(
        "POST", "/actions?wait=1",
        headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
        body:
          #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9}}"#)
    }
    #expect(answer?.status == 200)
    #expect(answer?.text.contains("actionRejected") == true)
    let stopped = await onThread { server.stop() }
    #expect(stopped.status == 0)
    #expect(
      stopped.stderr.contains(#""path":"/actions","status":200"#),
      "the request's line reaches standard error: \(stopped.stderr)")

    let (listStatus, listing) = try await run(["serve", "keys", "list", "--state-dir", state])
    #expect(listStatus == 0)
    #expect(listing.contains("admin"))
    #expect(!listing.contains(key))
  }

  @Test func administrationWorksWhileServeRunsAndSubscriberChangesAreRefused() async throws {
    let state = temporaryDirectory()
    let (initStatus, _) = try await run(["serve", "keys", "init", "--state-dir", state])
    #expect(initStatus == 0)
    let (server, _) = try await startServer(state: state)
    defer { server.stop() }
    let (listStatus, listing) = try await run(["serve", "keys", "list", "--state-dir", state])
    #expect(listStatus == 0)
    #expect(listing.contains("admin"))
    let (groupsStatus, _) = try await run([
      "serve", "groups", "create", "ops", "--state-dir", state,
    ])
    #expect(groupsStatus == 0, "group changes go through the shared log")
    // Keys change beside it (the keys file has its own lock); the running server owns the
    // subscribers file and the webhook deliveries.
    let (issueStatus, _) = try await run(["serve", "keys", "issue", "--state-dir", state])
    #expect(issueStatus == 0)
    let (subscriberStatus, _) = try await run([
      "serve", "subscribers", "remove", "billing", "--state-dir", state,
    ])
    #expect(subscriberStatus == 73)
    let (secondStatus, _) = try await run(["serve", "--state-dir", state, "--port", "0"])
    #expect(secondStatus == 73)
    let status = await onThread { server.stop().status }
    #expect(status == 0)
    // Once it stopped, the change is tried (and there is no such subscriber).
    let (afterStatus, _) = try await run([
      "serve", "subscribers", "remove", "billing", "--state-dir", state,
    ])
    #expect(afterStatus == 1)
  }

  @Test func serveStartsOnAStateFolderThatDoesNotExistYet() async throws {
    let state = temporaryDirectory() + "/not/made/yet"
    let (server, port) = try await startServer(state: state)
    defer { server.stop() }
    #expect(port > 0)
    var info = stat()
    #expect(stat(state, &info) == 0 && info.st_mode & 0o077 == 0, "made, private")
    let status = await onThread { server.stop().status }
    #expect(status == 0)
  }

  @Test func serveTakesAnIdempotencyKeyOlderThanADayAsNew() async throws {
    // A log from yesterday: an admin key, and an action sent with Idempotency-Key order-17.
    let state = temporaryDirectory()
    let token = KeyToken.generate()
    try KeyFile(path: state + "/events.jsonl.keys").add(token)
    let now = Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
    let yesterday = now.adding(milliseconds: -25 * 3_600_000)
    let log = try EventLogWriter(path: state + "/events.jsonl")
    _ = try log.appendLine(
      Event(
        seq: 1, at: yesterday, origin: .cli,
        action: .issueKey(.init(by: "local", key: token.keyID, groups: ["admin"]))
      ).encoded())
    _ = try log.appendLine(
      Event(
        seq: 2, at: yesterday, origin: .webhook, idempotencyKey: "\(token.keyID):order-17",
        action: .setServer(.init(url: "embedded"))
      ).encoded())
    try log.close()

    let (server, port) = try await startServer(state: state)
    defer { server.stop() }
    let answers = await onThread {
      let client = try? LoopbackHTTPClient(port: port)
      defer { client?.close() }
      return (0..<2).map { _ in
        try? client?.request(
          "POST", "/actions",
          headers: [
            ("Authorization", "Bearer \(token.text)"), ("Content-Type", "application/json"),
            ("Idempotency-Key", "order-17"),
          ],
          body: #"{"type":"setServer","payload":{"url":"embedded"}}"#)
      }
    }
    #expect(answers.map { $0?.status } == [202, 202])
    #expect(answers.map { $0?.text } == [#"{"seq":3}"#, #"{"seq":3}"#])
    #expect(answers.map { $0?.header("Idempotent-Replayed") } == [nil, "true"])
    let status = await onThread { server.stop().status }
    #expect(status == 0)
  }
}
