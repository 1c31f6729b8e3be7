import Foundation
import SusiHTTPTesting
import SusiTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A chat open on a real terminal while `susi ask` runs in another "terminal" on the same log:
/// the ask works, and the chat shows its question and answer without disturbing the line
/// being typed.
@Suite struct SharedChatTerminalTests {
  @Test func aChatOnATerminalShowsWhatASusiAskBesideItAdded() async throws {
    let susi = try SusiBinary.built()
    let folder = FileManagerTestFolder()
    let common = ["--state-dir", folder.path + "/state", "--fsync", "never"]
    let environment = SusiBinary.isolatedEnvironment(folder.path)
    let (shown, asked, status) = try await onThread {
      () throws -> (String, SusiProcess.Output, Int32) in
      let terminal = try #require(TextPseudoTerminal())
      let process = try terminal.start(susi.path, common, environment: environment, typing: true)
      var shown = terminal.read(until: LineEditorTerminalTests.prompt, timeout: 120)
      // Something half typed at the prompt stays where it was.
      terminal.type("flip")
      shown += terminal.read(until: "flip", timeout: 120)
      let asked = try susi.runBlocking(
        common + ["ask", "what is your name"], environment: environment)
      shown += terminal.read(until: "Asked in another susi: what is your name", timeout: 120)
      // The redrawn line may have come in the same read as the announcement.
      if !Self.redrawsTheLineAfterTheAnnouncement(shown) {
        shown += terminal.read(until: "flip", timeout: 120)
      }
      terminal.type("\u{15}/quit\r")  // Ctrl-U drops the half-typed line
      shown += terminal.readAll(timeout: 120)
      return (shown, asked, process.waitForExit(timeout: 120).status)
    }
    #expect(asked.status == 0, "susi ask beside the chat: \(asked.stderr)")
    #expect(shown.contains("Asked in another susi: what is your name"), "\(shown)")
    let answer = try #require(asked.stdout.split(separator: "\n").first.map(String.init))
    #expect(shown.contains(answer), "the chat shows the other susi's answer: \(shown)")
    #expect(
      Self.redrawsTheLineAfterTheAnnouncement(shown),
      "the half-typed line is drawn again after the announcement")
    #expect(status == 0)
  }

  static func redrawsTheLineAfterTheAnnouncement(_ shown: String) -> Bool {
    guard let announcement = shown.range(of: "Asked in another susi") else { return false }
    return shown[announcement.upperBound...].contains("flip")
  }
}
