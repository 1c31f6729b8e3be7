import Foundation
import SusiCore
import SusiEventLog
import SusiFiles
import SusiTesting
import SusiWebhook
import Testing

/// The built `susi` binary: `susi serve keys init`, `susi serve`, a request, SIGTERM.
@Suite struct WebhookServeCommandTests {
  static let susi: String? = {
    let tests = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent()
    for folder in [tests, tests.deletingLastPathComponent()] {
      let candidate = folder.appendingPathComponent("susi").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }()

  /// Runs `susi` to completion; its exit status and stdout.
  func run(_ arguments: [String]) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(Self.susi))
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = Pipe()
    try ProcessLaunch.run(process)
    let data = output.fileHandleForReading.readToEndOfInput()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  /// Starts `susi serve` on a free loopback port; the process and its port.
  func startServer(state: String) async throws -> (Process, Int) {
    let server = Process()
    server.executableURL = URL(fileURLWithPath: try #require(Self.susi))
    server.arguments = ["serve", "--state-dir", state, "--port", "0"]
    let output = Pipe()
    server.standardOutput = output
    server.standardError = Pipe()
    try ProcessLaunch.run(server)
    let reader = output.fileHandleForReading
    let url = await onThread { () -> String in
      var text = ""
      while !text.contains("\n") {
        let data = reader.readAvailable()
        if data.isEmpty { break }
        text += String(decoding: data, as: UTF8.self)
      }
      return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let port = try #require(url.split(separator: ":").last.flatMap { Int($0) })
    #expect(url == "http://127.0.0.1:\(port)")
    return (server, port)
  }

  @Test func serveAnswersWithTheInitialKeyAndStopsCleanlyOnSIGTERM() async throws {
    let state = temporaryDirectory()
    let (initStatus, keyLine) = try run(["serve", "keys", "init", "--state-dir", state])
    #expect(initStatus == 0)
    let key = keyLine.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(key.hasPrefix("susi_"))

    let (server, port) = try await startServer(state: state)
    let answer = await onThread {
      var client = WebhookHTTPClient(port: port)
      defer { client.close() }
      return client.send(
        "POST", "/actions?wait=1",
        headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
        body:
          #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9}}"#)
    }
    #expect(answer?.status == 200)
    #expect(answer?.text.contains("actionRejected") == true)
    server.terminate()
    let status = await onThread {
      server.waitUntilExit()
      return server.terminationStatus
    }
    #expect(status == 0)

    let (listStatus, listing) = try run(["serve", "keys", "list", "--state-dir", state])
    #expect(listStatus == 0)
    #expect(listing.contains("admin"))
    #expect(!listing.contains(key))
  }

  @Test func readOnlyAdministrationWorksWhileServeRunsAndFileChangesAreRefused() async throws {
    let state = temporaryDirectory()
    let (initStatus, _) = try run(["serve", "keys", "init", "--state-dir", state])
    #expect(initStatus == 0)
    let (server, _) = try await startServer(state: state)
    let (listStatus, listing) = try run(["serve", "keys", "list", "--state-dir", state])
    #expect(listStatus == 0)
    #expect(listing.contains("admin"))
    let (groupsStatus, _) = try run(["serve", "groups", "create", "ops", "--state-dir", state])
    #expect(groupsStatus == 0, "group changes go through the shared log")
    // The running server owns the keys file and the webhook deliveries.
    let (issueStatus, _) = try run(["serve", "keys", "issue", "--state-dir", state])
    #expect(issueStatus == 73)
    let (secondStatus, _) = try run(["serve", "--state-dir", state, "--port", "0"])
    #expect(secondStatus == 73)
    server.terminate()
    let status = await onThread {
      server.waitUntilExit()
      return server.terminationStatus
    }
    #expect(status == 0)
    let (afterStatus, _) = try run(["serve", "keys", "issue", "--state-dir", state])
    #expect(afterStatus == 0)
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
    let answers = await onThread {
      var client = WebhookHTTPClient(port: port)
      defer { client.close() }
      return (0..<2).map { _ in
        client.send(
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
    server.terminate()
    let status = await onThread {
      server.waitUntilExit()
      return server.terminationStatus
    }
    #expect(status == 0)
  }
}
