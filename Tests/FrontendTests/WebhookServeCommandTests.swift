import Foundation
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
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  @Test func serveAnswersWithTheInitialKeyAndStopsCleanlyOnSIGTERM() async throws {
    let state = temporaryDirectory()
    let (initStatus, keyLine) = try run(["serve", "keys", "init", "--state-dir", state])
    #expect(initStatus == 0)
    let key = keyLine.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(key.hasPrefix("susi_"))

    let server = Process()
    server.executableURL = URL(fileURLWithPath: try #require(Self.susi))
    server.arguments = ["serve", "--state-dir", state, "--port", "0"]
    let output = Pipe()
    server.standardOutput = output
    server.standardError = Pipe()
    try server.run()
    let reader = output.fileHandleForReading
    let url = await onThread { () -> String in
      var text = ""
      while !text.contains("\n") {
        let data = reader.availableData
        if data.isEmpty { break }
        text += String(decoding: data, as: UTF8.self)
      }
      return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let port = try #require(url.split(separator: ":").last.flatMap { Int($0) })
    #expect(url == "http://127.0.0.1:\(port)")
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
}
