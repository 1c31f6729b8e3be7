import Foundation
import SusiHTTPTesting
import SusiTesting
import Testing

/// The built `susi` against a server whose chat reply holds everything that once poisoned a
/// log: known actions it cannot read, a table cell nested near the limit, a huge `plan_delay`.
/// The log stays readable: the next commands on it succeed.
@Suite(.hangLimit)
struct HostileServerBinaryTests {
  static let reply = Array(
    #"""
    {"query":"where","answers":[{"data":[{"c":\#(String(repeating: "[", count: 240) + "1" + String(repeating: "]", count: 240))}],
     "actions":[{"type":"map","latitude":"$lat$","longitude":"$lon$"},{"type":"answer"},
      {"type":"anchor","text":"t"},{"type":"table"},
      {"type":"answer","expression":"much later","plan_delay":9223372036854775807}]}],
     "answer_date":9223372036854775807,"query_date":"0000-01-01T00:00:00+23:59"}
    """#.utf8)

  @Test func theLogOfAHostileReplyStaysReadable() async throws {
    let server = try #require(
      LoopbackServer { _ in
        LoopbackServer.reply(200, ["Content-Type: application/json"], body: Self.reply)
      })
    defer { server.stop() }
    let folder = Harness.makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let log = folder + "/events.jsonl"
    let susi = try SusiBinary.built()
    func run(_ arguments: [String], server url: String? = server.baseURL) async throws
      -> SusiProcess.Output
    {
      try await susi.run(
        (url.map { ["--server", $0] } ?? []) + ["--state-dir", folder + "/state", "--log", log]
          + arguments,
        environment: [
          "PATH": "/usr/bin:/bin", "HOME": folder, "LANG": "C.UTF-8", "NO_COLOR": "1",
          "TERM": "dumb",
        ])
    }
    let first = try await run(["ask", "where"])
    #expect(first.status == 0, "\(first.stderr)")
    let verified = try await run(["replay", log, "--verify"], server: nil)
    #expect(verified.status == 0, "\(verified.stderr)")
    let second = try await run(["ask", "where"])
    #expect(second.status == 0, "\(second.stderr)")
    let text = try String(contentsOfFile: log, encoding: .utf8)
    #expect(text.contains(#"{"type":"unknown","serverType":"map","raw":"#))
  }
}
