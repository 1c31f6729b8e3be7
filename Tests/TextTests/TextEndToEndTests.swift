import Foundation
import SusiCore
import SusiHTTPTesting
import SusiServer
import SusiTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The built `susi` driven through pipes, as a person or a script would, against its built-in
/// server in a fresh folder; what it prints is compared with golden transcripts.
@Suite
struct TextEndToEndTests {
  let susi: SusiBinary

  /// Fails every test of the suite, never skips it, when the binary is missing.
  init() throws {
    susi = try SusiBinary.built()
  }
  let folder = FileManagerTestFolder()

  var isolation: [String] { SusiBinary.isolatedArguments(folder.path) }
  var environment: [String: String] { SusiBinary.isolatedEnvironment(folder.path) }

  func expectGolden(
    _ name: String, _ transcript: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let normalized = TextGolden.normalize(transcript, temporaryFolder: folder.path)
    if let difference = TextGolden.compare(name, normalized) {
      Issue.record(Comment(rawValue: difference), sourceLocation: sourceLocation)
    }
  }

  /// `environment` letting previews reach the local pages server of these tests.
  static func allowingPrivateTargets(_ environment: [String: String]) -> [String: String] {
    environment.merging(["SUSI_ALLOW_PRIVATE_TARGETS": "1"]) { $1 }
  }

  /// Every line of the log decodes as an event, seqs run 1, 2, 3 … and nothing secret is in it.
  func expectCleanLog(sourceLocation: SourceLocation = #_sourceLocation) throws -> [Event] {
    let text = try String(contentsOfFile: folder.path + "/events.jsonl", encoding: .utf8)
    #expect(text.hasSuffix("\n"), "the log ends in a complete line", sourceLocation: sourceLocation)
    var events: [Event] = []
    for line in text.split(separator: "\n") { events.append(try Event.decode(Array(line.utf8))) }
    #expect(!events.isEmpty, sourceLocation: sourceLocation)
    #expect(events.map(\.seq) == Array(1..<(events.count + 1)), sourceLocation: sourceLocation)
    #expect(
      !text.contains(Self.password), "the password never reaches the log",
      sourceLocation: sourceLocation)
    return events
  }

  static let password = "Secret-Passw0rd!"

  @Test func chatSessionOfEverySlashCommand() async throws {
    // A web page to preview: the built-in server's own pages, served here on a known port.
    let pages = try await EmbeddedServer.start(ServerConfiguration(port: 0))
    defer { Task { await pages.stop() } }
    let lines = [
      "/help",
      "/server",
      "/server embedded",
      "how are you",
      "what is the capital of France",
      "show me the league table",
      "world population by continent",
      "where is Berlin",
      "show me the news",
      "play a video",
      "play the radio",
      "set volume to 40",
      "stop",
      "show me a painting",
      "search for susi",
      "/groups",
      "/skills Knowledge",
      "/skills nonsense",
      "/skill capitals",
      "/skill no such skill",
      "/skill flip a con",
      "/rate Capitals 5",
      "/settings",
      "/signup e2e@example.org",
      Self.password,
      "/login e2e@example.org",
      Self.password,
      "/rate Capitals 5",
      "/myrating capitals",
      "/skill Capitals",
      "how are you",
      "/set theme dark",
      "/set micInput maybe",
      "/settings",
      "/sync",
      "/search swift",
      "/preview \(pages.baseURLString)/pages/pancakes.html",
      "/history",
      "/replay",
      "/skils",
      "/logout",
      "//etc",
      "set a timer for 60 minutes",
      "/quit",
      "this line is never read",
    ]
    let input = lines.joined(separator: "\n") + "\n"
    // The preview's page is on a second local server, not the SUSI server in use.
    let run = try await susi.run(
      isolation, input: input, environment: Self.allowingPrivateTargets(environment))
    expectGolden(
      "chat-session",
      TextGolden.transcript(
        ["--state-dir", "$TMP/state", "--log", "$TMP/events.jsonl"], input: input, run))
    #expect(run.status == 1, "some lines fail on purpose")
    #expect(
      !run.stdout.contains("\u{1B}") && !run.stderr.contains("\u{1B}"),
      "no escape sequences into a pipe")
    _ = try expectCleanLog()
  }

  @Test func oneShotCommandsShareTheLogAndResume() async throws {
    let pages = try await EmbeddedServer.start(ServerConfiguration(port: 0))
    defer { Task { await pages.stop() } }
    let steps: [(arguments: [String], input: String)] = [
      (["groups"], ""),
      (["skills", "Knowledge"], ""),
      (["skills"], ""),
      (["skill", "capitals"], ""),
      (["ask", "what", "is", "the", "capital", "of", "France"], ""),
      (["ask", "show me the league table"], ""),
      (["search", "swift"], ""),
      (["rate", "Capitals", "4"], ""),
      (["signup", "e2e@example.org"], Self.password + "\n"),
      (["login", "e2e@example.org"], Self.password + "\n"),
      (["rate", "Capitals", "4"], ""),
      (["myrating", "Capitals"], ""),
      (["ask", "how", "are", "you"], ""),
      (["settings", "set", "theme", "dark"], ""),
      (["settings"], ""),
      (["settings", "sync"], ""),
      (["history"], ""),
      (["preview", pages.baseURLString + "/pages/susi.html"], ""),
      (["logout"], ""),
      (["myrating", "Capitals"], ""),
    ]
    var transcript = ""
    for step in steps {
      let run = try await susi.run(
        isolation + step.arguments, input: step.input,
        environment: Self.allowingPrivateTargets(environment))
      transcript += TextGolden.transcript(step.arguments, input: step.input, run) + "\n"
      #expect(!run.stdout.contains("\u{1B}") && !run.stderr.contains("\u{1B}"))
    }
    expectGolden("one-shot-commands", transcript)
    _ = try expectCleanLog()
  }

  @Test func exitCodesSayHowACommandEnded() async throws {
    let cases: [([String], Int32)] = [
      (["frobnicate"], 64),
      (["skils", "Knowledge"], 64),
      (["rate", "Capitals"], 64),
      (["rate", "Capitals", "six"], 64),
      (["skill"], 64),
      (["settings", "frob"], 64),
      (["login", "a@example.org", "b@example.org"], 64),
      (["groups", "--colour"], 64),
      (["rate", "Capitals", "5"], 1),
      (["skill", "no such skill"], 1),
      (["login", "nobody@example.org"], 1),
      (["--server", "http://127.0.0.1:1", "groups"], 1),
      // The server chosen last is kept: back to the built-in one by name.
      (["--server", "embedded", "groups"], 0),
      (["rate", "--help"], 0),
      (["--version"], 0),
      (["chat"], 0),
    ]
    var transcript = ""
    for (arguments, status) in cases {
      let input = arguments.first == "login" ? "Wrong-Passw0rd!\n" : ""
      let run = try await susi.run(
        isolation + arguments, input: input, environment: environment)
      #expect(run.status == status, "susi \(arguments.joined(separator: " ")) exits \(status)")
      transcript += TextGolden.transcript(arguments, input: input, run) + "\n"
    }
    // Help needs no state: it runs without the isolation options. (The overview lists other
    // frontends' commands too, so only this frontend's help is pinned here.)
    for arguments in [["help", "rate"]] {
      let run = try await susi.run(arguments, environment: environment)
      #expect(run.status == 0)
      transcript += TextGolden.transcript(arguments, run) + "\n"
    }
    expectGolden("exit-codes", transcript)
  }

  @Test func coloursOnlyOnATerminalAndNeverWithNoColor() async throws {
    func skillPage(_ extra: [String: String]) async throws -> String {
      let (path, arguments) = (susi.path, isolation + ["skill", "Capitals"])
      let environment = SusiBinary.isolatedEnvironment(folder.path, extra)
      let (text, status) = try await onThread {
        try TextPseudoTerminal.run(path, arguments, environment: environment, typing: false)
      }
      #expect(status == 0, "\(text)")
      return text
    }
    // Colours are SGR sequences (ESC [ … m); a spinner, shown when the machine is slow, erases
    // its line with ESC [ K whatever the colour settings, so only SGR counts here.
    func coloured(_ text: String) -> Bool {
      text.range(of: "\u{1B}\\[[0-9;]*m", options: .regularExpression) != nil
    }
    #expect(coloured(try await skillPage([:])))
    #expect(!coloured(try await skillPage(["NO_COLOR": "1"])))
    #expect(!coloured(try await skillPage(["TERM": "dumb"])))
    let ascii = try await skillPage(["NO_COLOR": "1", "LANG": "C"])
    #expect(ascii.contains("Capitals") && !ascii.contains("★"))
  }

  @Test func resumedChatSaysWelcomeBack() async throws {
    _ = try await susi.run(isolation + ["ask", "how are you"], environment: environment)
    let (path, arguments, environment) = (susi.path, isolation, environment)
    let (text, status) = try await onThread {
      try TextPseudoTerminal.run(
        path, arguments, environment: environment, typing: true, steps: [("> ", "/quit\n")])
    }
    #expect(status == 0, "\(text)")
    #expect(text.contains("Welcome back: 1 question so far"), "\(text)")
  }

  @Test func interruptMidRequestExits130AndLeavesALogThatReplays() async throws {
    let server = try #require(SilentServer())
    let running = try susi.start(
      isolation + ["--server", server.url, "ask", "hello"], environment: environment)
    running.closeInput()
    let (connected, run) = await onThread {
      let connected = server.waitForConnection(timeout: 120)
      running.signal(SIGINT)
      return (connected, running.waitForExit(timeout: 120))
    }
    #expect(connected, "susi asks the server")
    #expect(run.status == 130, "\(run.stderr)")
    let events = try expectCleanLog()
    let cancelled = events.contains { event in
      if case .requestFailed(let failed) = event.action { return failed.error.kind == .cancelled }
      return false
    }
    #expect(
      cancelled,
      "the request ends as cancelled in the log: \(events.map { "\($0.seq) \($0.action)" }) \(run.stderr)"
    )
    let replay = try await susi.run(
      ["replay", "--verify", folder.path + "/events.jsonl"], environment: environment)
    #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
  }

  @Test func passwordTypedAtATerminalIsNotEchoed() async throws {
    let signup = try await susi.run(
      isolation + ["signup", "e2e@example.org"], input: Self.password + "\n",
      environment: environment)
    #expect(signup.status == 0, "\(signup.stderr)")
    let (path, arguments, environment) = (
      susi.path, isolation + ["login", "e2e@example.org"], environment
    )
    let (text, status) = try await onThread {
      try TextPseudoTerminal.run(
        path, arguments, environment: environment, typing: true,
        steps: [("Password: ", Self.password + "\n")])
    }
    #expect(status == 0, "\(text)")
    #expect(text.contains("Logged in as e2e@example.org"))
    #expect(!text.contains(Self.password), "the password is not echoed")
  }
}
