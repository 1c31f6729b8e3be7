import Foundation
import SusiHTTPTesting
import SusiTesting
import Testing

/// Which server a run uses: `--server` and SUSI_SERVER for that run only, `susi server use` for
/// every later run; and network errors that say which server it was and how to go back.
@Suite
struct RememberedServerTests {
  let susi: SusiBinary

  init() throws { susi = try SusiBinary.built() }

  /// Nothing listens on port 1 of the loopback address: connections there are refused.
  static let gone = "http://127.0.0.1:1"

  private func folder() throws -> String {
    let path = TestScratch.root.appendingPathComponent(
      "susi-server-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  @Test func serverOptionAndVariableApplyToTheirRunOnly() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let once = try await susi.run(["--server", Self.gone, "groups"], environment: environment)
    #expect(once.status == 1)
    #expect(once.stderr.contains("127.0.0.1:1"), "the error names the host: \(once.stderr)")
    #expect(once.stderr.contains("--server, for this run only"), "\(once.stderr)")
    let next = try await susi.run(["groups"], environment: environment)
    #expect(next.status == 0, "the next run is back on the built-in server: \(next.stderr)")
    var variable = environment
    variable["SUSI_SERVER"] = Self.gone
    let fromEnvironment = try await susi.run(["groups"], environment: variable)
    #expect(fromEnvironment.status == 1)
    #expect(fromEnvironment.stderr.contains("SUSI_SERVER, for this run only"))
    let after = try await susi.run(["groups"], environment: environment)
    #expect(after.status == 0, "\(after.stderr)")
  }

  @Test func serverUseIsRememberedUntilEmbeddedGoesBack() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let use = try await susi.run(["server", "use", Self.gone], environment: environment)
    #expect(use.status == 0, "\(use.stderr)")
    let shown = try await susi.run(["server", "use"], environment: environment)
    #expect(shown.stdout == Self.gone + "\n")
    let failing = try await susi.run(["groups"], environment: environment)
    #expect(failing.status == 1)
    #expect(failing.stderr.contains("127.0.0.1:1"))
    #expect(failing.stderr.contains("remembered server"), "\(failing.stderr)")
    #expect(failing.stderr.contains("susi server use embedded"))
    let oneRun = try await susi.run(
      ["--server", "embedded", "groups"], environment: environment)
    #expect(oneRun.status == 0, "\(oneRun.stderr)")
    let stillRemembered = try await susi.run(["groups"], environment: environment)
    #expect(stillRemembered.status == 1)
    let back = try await susi.run(["server", "use", "embedded"], environment: environment)
    #expect(back.status == 0)
    let fine = try await susi.run(["groups"], environment: environment)
    #expect(fine.status == 0, "\(fine.stderr)")
  }

  @Test func serverSubcommandMistakesAreUsageErrors() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let typo = try await susi.run(["server", "usr", "x"], environment: environment)
    #expect(typo.status == 64)
    #expect(typo.stderr.contains("did you mean 'use'?"))
    let badURL = try await susi.run(["server", "use", "ftp://x"], environment: environment)
    #expect(badURL.status == 64)
    #expect(!FileManager.default.fileExists(atPath: dir + "/xdg/susi/remembered-server"))
  }

  @Test func serverSwitchedInTheChatIsRemembered() async throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let environment = SusiBinary.isolatedEnvironment(dir)
    let chat = try await susi.run([], input: "/server \(Self.gone)\n", environment: environment)
    #expect(chat.status == 0, "\(chat.stderr)")
    let shown = try await susi.run(["server", "use"], environment: environment)
    #expect(shown.stdout == Self.gone + "\n")
    // A run-only choice in the chat's start does not count as a switch.
    let oneRun = try await susi.run(
      ["--server", "embedded"], input: "flip a coin\n", environment: environment)
    #expect(oneRun.status == 0, "\(oneRun.stderr)")
    let still = try await susi.run(["server", "use"], environment: environment)
    #expect(still.stdout == Self.gone + "\n")
  }
}
