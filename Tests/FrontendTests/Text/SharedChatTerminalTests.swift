import Foundation
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
    let susi = try #require(TextBinary.find(), "the susi executable was not found; build it")
    let folder = FileManagerTestFolder()
    let common = ["--state-dir", folder.path + "/state", "--fsync", "never"]
    let environment = TextBinary.environment(folder.path)
    let (shown, asked, status) = try await TextBinary.offPool {
      () throws -> (String, TextBinary.Run, Int32) in
      let terminal = try #require(TextPseudoTerminal())
      let process = Process()
      process.executableURL = URL(fileURLWithPath: susi.path)
      process.arguments = common
      process.environment = environment
      process.standardInput = terminal.device
      process.standardOutput = terminal.device
      process.standardError = terminal.device
      try ProcessLaunch.run(process)
      terminal.closeDevice()
      var shown = terminal.read(until: LineEditorTerminalTests.prompt, timeout: 120)
      // Something half typed at the prompt stays where it was.
      terminal.type("flip")
      shown += terminal.read(until: "flip", timeout: 120)
      let asked = try susi.run(common + ["ask", "what is your name"], environment: environment)
      shown += terminal.read(until: "Asked in another susi: what is your name", timeout: 120)
      shown += terminal.read(until: "flip", timeout: 120)
      terminal.type("\u{15}/quit\r")  // Ctrl-U drops the half-typed line
      shown += terminal.readAll(timeout: 120)
      TextPseudoTerminal.finish(process)
      return (shown, asked, process.terminationStatus)
    }
    #expect(asked.status == 0, "susi ask beside the chat: \(asked.stderr)")
    #expect(shown.contains("Asked in another susi: what is your name"), "\(shown)")
    let answer = try #require(asked.stdout.split(separator: "\n").first.map(String.init))
    #expect(shown.contains(answer), "the chat shows the other susi's answer: \(shown)")
    let announcement = try #require(shown.range(of: "Asked in another susi"))
    #expect(
      shown[announcement.upperBound...].contains("flip"),
      "the half-typed line is drawn again after the announcement")
    #expect(status == 0)
  }
}
