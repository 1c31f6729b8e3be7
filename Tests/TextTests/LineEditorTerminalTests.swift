import Foundation
import SusiCore
import SusiHTTPTesting
import SusiTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The chat's line editor through the built `susi` on a real pseudo-terminal: keys typed as a
/// terminal sends them, what reaches SUSI read back from the event log.
@Suite
struct LineEditorTerminalTests {
  let susi: SusiBinary

  /// Fails every test of the suite, never skips it, when the binary is missing.
  init() throws {
    susi = try SusiBinary.built()
  }
  let folder = FileManagerTestFolder()

  var isolation: [String] { SusiBinary.isolatedArguments(folder.path) }
  var environment: [String: String] { SusiBinary.isolatedEnvironment(folder.path) }

  /// The editor drawing an empty line: the prompt is ready for keys.
  static let prompt = "\r> \u{1B}[K\r\u{1B}[2C"
  static let up = "\u{1B}[A"
  static let left = "\u{1B}[D"

  /// Runs the chat on a terminal, typing `steps`; returns what it showed, its exit status and
  /// whether the terminal was back in line mode with echo after it ended.
  func chat(_ steps: [(until: String, type: String)]) async throws -> (
    output: String, status: Int32, restored: Bool
  ) {
    let (path, arguments, environment) = (susi.path, isolation, environment)
    return try await onThread {
      var restored = false
      let (output, status) = try TextPseudoTerminal.run(
        path, arguments, environment: environment, typing: true, steps: steps,
        afterExit: { terminal in
          let modes = terminal.localModes
          restored =
            modes & tcflag_t(ICANON) != 0 && modes & tcflag_t(ECHO) != 0
            && modes & tcflag_t(ISIG) != 0
        })
      return (output, status, restored)
    }
  }

  /// The questions sent to SUSI, in order, from the log.
  func questions() throws -> [String] {
    let text = try String(contentsOfFile: folder.path + "/events.jsonl", encoding: .utf8)
    return try text.split(separator: "\n").compactMap { line in
      let event = try Event.decode(Array(line.utf8))
      if case .sendMessage(let message) = event.action { return message.query }
      return nil
    }
  }

  @Test func editingKeysAndTheUpArrowRecallThePreviousLine() async throws {
    let run = try await chat([
      (Self.prompt, "what is the capital of Frnce" + Self.left + Self.left + Self.left + "a\r"),
      (Self.prompt, Self.up + "\r"),
      // F5 and Ctrl-Right mean nothing here: ignored, never typed.
      (Self.prompt, "\u{1B}[15~\u{1B}[1;5Cwhere is Berlin\u{17}Paris\r"),
      (Self.prompt, "/quit\r"),
    ])
    #expect(run.status == 0, "\(run.output)")
    #expect(run.restored, "the terminal is back in line mode with echo")
    let asked = try questions()
    #expect(
      asked == [
        "what is the capital of France", "what is the capital of France", "where is Paris",
      ], "\(run.output)")
    #expect(!asked.contains { $0.contains("\u{1B}") || $0.contains("[A") || $0.contains("[1") })
  }

  @Test func ctrlLClearsTheScreenAndDrawsTheLineAgain() async throws {
    let run = try await chat([
      (Self.prompt, "flip a\u{0C} coin\r"),
      (Self.prompt, "/quit\r"),
    ])
    #expect(run.status == 0, "\(run.output)")
    #expect(run.output.contains("\u{1B}[H\u{1B}[2J"), "\(run.output)")
    #expect(try questions() == ["flip a coin"])
  }

  @Test func tabCompletesCommandsAndSkillNames() async throws {
    let run = try await chat([
      // `/sk` completes to `/skill`, the part `/skill` and `/skills` share.
      (Self.prompt, "/sk\ts\r"),
      (Self.prompt, "/skill capi\t\r"),
      (Self.prompt, "/skill world p\t\r"),
      (Self.prompt, "/quit\r"),
    ])
    #expect(run.status == 0, "\(run.output)")
    #expect(run.output.contains("> /skills\u{1B}[K\r\n"), "\(run.output)")
    #expect(run.output.contains("> /skill Capitals \u{1B}[K\r\n"), "\(run.output)")
    #expect(run.output.contains("> /skill World population \u{1B}[K\r\n"), "\(run.output)")
    #expect(run.output.contains("> /skill World population \u{1B}[K\r\n"), "\(run.output)")
    #expect(run.output.contains("what is the capital of Peru"), "the skill page is shown")
  }

  @Test func historySurvivesARestartInAPrivateFile() async throws {
    let first = try await chat([(Self.prompt, "how are you\r"), (Self.prompt, "/quit\r")])
    #expect(first.status == 0, "\(first.output)")
    let historyPath = folder.path + "/state/chat-history"
    let attributes = try FileManager.default.attributesOfItem(atPath: historyPath)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let second = try await chat([
      (Self.prompt, Self.up + Self.up + "\r"), (Self.prompt, "/quit\r"),
    ])
    #expect(second.status == 0, "\(second.output)")
    #expect(try questions() == ["how are you", "how are you"], "\(second.output)")
  }

  @Test func aPasswordTypedAtItsPromptIsNeitherEchoedNorKept() async throws {
    let password = "Secret-Passw0rd!"
    let signup = try await susi.run(
      isolation + ["signup", "keys@example.org"], input: password + "\n",
      environment: environment)
    #expect(signup.status == 0, "\(signup.stderr)")
    let run = try await chat([
      (Self.prompt, "/login keys@example.org\r"),
      ("Password: ", password + "\n"),
      (Self.prompt, Self.up + "\r"),
      ("Password: ", password + "\n"),
      (Self.prompt, "/quit\r"),
    ])
    #expect(run.status == 0, "\(run.output)")
    #expect(run.restored)
    #expect(run.output.contains("Logged in as keys@example.org"), "\(run.output)")
    #expect(!run.output.contains(password), "the password is not echoed")
    let history = try String(contentsOfFile: folder.path + "/state/chat-history", encoding: .utf8)
    #expect(history == "/login keys@example.org\n/quit\n")
  }

  @Test func ctrlCDropsTheLineAndCtrlDQuits() async throws {
    let run = try await chat([(Self.prompt, "not this\u{03}"), (Self.prompt, "\u{04}")])
    #expect(run.status == 0, "\(run.output)")
    #expect(run.restored)
    #expect(run.output.contains("press Ctrl-C again"), "\(run.output)")
    #expect(try questions().isEmpty)
  }

  @Test func sigtermAtThePromptLeavesTheTerminalAsItWasFound() async throws {
    let (path, arguments, environment) = (susi.path, isolation, environment)
    let (rawWhileTyping, restored, signalled) = try await onThread {
      guard let terminal = TextPseudoTerminal() else {
        throw TextPseudoTerminal.TerminalUnavailable()
      }
      let process = try terminal.start(path, arguments, environment: environment, typing: true)
      _ = terminal.read(until: Self.prompt, timeout: 120)
      let raw = terminal.localModes & tcflag_t(ICANON | ECHO) == 0
      let ended = process.stop(signal: SIGTERM, timeout: 120)
      let modes = terminal.localModes
      return (raw, modes & tcflag_t(ICANON) != 0 && modes & tcflag_t(ECHO) != 0, ended.signalled)
    }
    #expect(rawWhileTyping, "the prompt reads keys in raw mode")
    #expect(restored, "line mode and echo are back after SIGTERM")
    #expect(signalled, "SIGTERM still ends the chat")
  }

  @Test func aDumbTerminalReadsLinesAsBefore() async throws {
    let (path, arguments) = (susi.path, isolation)
    let environment = self.environment.merging(["TERM": "dumb"]) { $1 }
    let (output, status) = try await onThread {
      try TextPseudoTerminal.run(
        path, arguments, environment: environment, typing: true,
        steps: [("> ", "how are you\n"), ("> ", "/quit\n")])
    }
    #expect(status == 0, "\(output)")
    #expect(!output.contains("\u{1B}[K"), "no line editor drawing")
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/state/chat-history"))
  }
}
