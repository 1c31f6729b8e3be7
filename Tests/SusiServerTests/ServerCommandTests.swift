import Foundation
import Synchronization
import Testing

@testable import SusiServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct ServerCommandTests {
  /// Collects what the command prints.
  final class Capture: Sendable {
    private let text = Mutex("")
    func append(_ more: String) { text.withLock { $0 += more } }
    var value: String { text.withLock { $0 } }
  }

  @Test func parsesOptions() throws {
    #expect(try ServerCommand.parse([]) == ServerCommand.Options())
    let options = try ServerCommand.parse(
      ["--port", "8080", "--host=0.0.0.0", "--data", "/d", "--state-dir=/s", "--seed", "7"])
    #expect(options.port == 8080)
    #expect(options.host == "0.0.0.0")
    #expect(options.data == "/d")
    #expect(options.stateDirectory == "/s")
    #expect(options.seed == 7)
    #expect(try ServerCommand.parse(["-h"]).help)
    let proxies = try ServerCommand.parse([
      "--trusted-proxy", "10.0.0.2, ::1", "--trusted-proxy=10.0.0.3",
    ])
    #expect(proxies.trustedProxies == ["10.0.0.2", "::1", "10.0.0.3"])
  }

  @Test func rejectsBadUsageWithStatus64() async throws {
    for arguments in [
      ["--verbose"], ["--port"], ["--port", "99999"], ["--seed", "-1"], ["extra"],
      ["--trusted-proxy", ""], ["--trusted-proxy", "a,,b"],
    ] {
      let output = Capture()
      let errors = Capture()
      let status = await ServerCommand.run(
        arguments: arguments, environment: [:], output: output.append, errors: errors.append,
        until: {})
      #expect(status == 64, "\(arguments)")
      #expect(output.value.isEmpty)
      #expect(errors.value.hasPrefix("susi server: "))
      #expect(errors.value.contains("usage: susi server"))
    }
  }

  @Test func helpGoesToStandardOutput() async {
    let output = Capture()
    let status = await ServerCommand.run(
      arguments: ["--help"], environment: [:], output: output.append, errors: { _ in }, until: {})
    #expect(status == 0)
    #expect(output.value.hasPrefix("usage: susi server"))
  }

  @Test func printsOneLineWithTheBaseURLAndStopsCleanly() async throws {
    let state = try temporaryDirectory()
    let output = Capture()
    let errors = Capture()
    let reached = Mutex(false)
    let status = await ServerCommand.run(
      arguments: ["--port", "0", "--state-dir", state.path, "--seed", "1"], environment: [:],
      output: output.append, errors: errors.append,
      until: {
        // Stop once a request to the printed URL has been answered.
        let line = output.value.trimmingCharacters(in: .newlines)
        guard let url = URL(string: line + "/cms/getGroups.json") else { return }
        if let (_, response) = try? await URLSession.shared.data(from: url),
          (response as? HTTPURLResponse)?.statusCode == 200
        {
          reached.withLock { $0 = true }
        }
      })
    #expect(status == 0)
    #expect(reached.withLock { $0 })
    let lines = output.value.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 2 && lines[1].isEmpty)
    #expect(lines[0].hasPrefix("http://127.0.0.1:"))
    #expect(errors.value.contains("shutting down"))
  }

  @Test func reportsAnAddressThatCannotBeBound() async throws {
    let errors = Capture()
    let status = await ServerCommand.run(
      arguments: ["--host", "203.0.113.1", "--state-dir", try temporaryDirectory().path],
      environment: [:], output: { _ in }, errors: errors.append, until: {})
    #expect(status == 1)
    #expect(errors.value.contains("cannot start"))
  }
}
