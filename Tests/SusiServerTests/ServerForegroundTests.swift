import Foundation
import Synchronization
import Testing

@testable import SusiServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct ServerForegroundTests {
  /// Collects what the command prints.
  final class Capture: Sendable {
    private let text = Mutex("")
    func append(_ more: String) { text.withLock { $0 += more } }
    var value: String { text.withLock { $0 } }
  }

  @Test func printsOneLineWithTheBaseURLAndStopsCleanly() async throws {
    let state = try temporaryDirectory()
    let output = Capture()
    let errors = Capture()
    let reached = Mutex(false)
    let status = await ServerForeground.run(
      ServerConfiguration(port: 0, stateDirectory: state, seed: 1),
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
    let status = await ServerForeground.run(
      ServerConfiguration(host: "203.0.113.1", stateDirectory: try temporaryDirectory()),
      output: { _ in }, errors: errors.append, until: {})
    #expect(status == 1)
    #expect(errors.value.contains("cannot start"))
  }
}
