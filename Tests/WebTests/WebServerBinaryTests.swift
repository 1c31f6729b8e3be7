import Foundation
import SusiApplication
import SusiHTTPTesting
import SusiHTTPTypes
import SusiJSON
import SusiTesting
import Testing

/// The built `susi`: `susi web` prints its URL, signs a browser tab in with it once, prints a
/// new one on Enter, and the token shows up nowhere else; `susi serve --web` serves the pages and key sessions.
@Suite struct WebServerBinaryTests {
  let susi: SusiBinary

  /// Fails every test of the suite, never skips it, when the binary is missing.
  init() throws {
    susi = try SusiBinary.built()
  }

  /// Starts `susi ARGUMENTS` (with `path` as its PATH when given) and waits for the first line
  /// it prints.
  func start(_ arguments: [String], path: String? = nil) throws -> SusiProcess {
    var environment = ProcessInfo.processInfo.environment
    if let path { environment["PATH"] = path }
    return try susi.start(arguments, environment: environment)
  }

  /// The first line `running` printed ("" when it ended without one).
  func firstLine(of running: SusiProcess) async throws -> String {
    try await onThread { try running.nextLine() } ?? ""
  }

  /// Every file under `folder`, with its bytes.
  static func files(under folder: String) -> [(String, Data)] {
    let enumerator = FileManager.default.enumerator(atPath: folder)
    var found: [(String, Data)] = []
    while let name = enumerator?.nextObject() as? String {
      let path = folder + "/" + name
      if let data = FileManager.default.contents(atPath: path) { found.append((path, data)) }
    }
    return found
  }

  @Test func susiWebPrintsItsURLAndTheTokenAppearsNowhereElse() async throws {
    let state = temporaryDirectory()
    let running = try start(["web", "--state-dir", state, "--port", "0"])
    defer { running.stop() }
    let url = try await firstLine(of: running)
    let pattern = #/^http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{43})$/#
    let match = try #require(url.wholeMatch(of: pattern), "printed: \(url)")
    let port = try #require(Int(match.1))
    let token = String(match.2)
    let origin = "http://127.0.0.1:\(port)"

    let redeem: @Sendable (String) -> Answer? = { token in
      exchange(
        port: port, "POST", "/session",
        headers: [("Origin", origin), ("Content-Type", "application/json")],
        body: #"{"token":"\#(token)"}"#)
    }
    let answers = await onThread { () -> [Answer?] in
      var answers: [Answer?] = []
      answers.append(exchange(port: port, "GET", "/"))
      // One character changed (never to itself: that would be the right token).
      let wrong = token.dropLast() + (token.last == "A" ? "B" : "A")
      answers.append(redeem(String(wrong)))
      let signIn = redeem(token)
      answers.append(signIn)
      let session = [("X-Susi-Session", signIn.flatMap(WebFixture.sessionID) ?? "")]
      answers.append(redeem(token))
      answers.append(exchange(port: port, "GET", "/session", headers: session))
      let json = session + [("Content-Type", "application/json")]
      let intent = #"{"type":"sendMessage","payload":{"query":"hi"}}"#
      answers.append(
        exchange(
          port: port, "POST", "/actions", headers: json + [("Origin", "http://evil.example")],
          body: intent))
      answers.append(
        exchange(
          port: port, "POST", "/actions", headers: json + [("Origin", origin)],
          body: intent))
      answers.append(exchange(port: port, "GET", "/state", headers: session))
      answers.append(exchange(port: port, "GET", "/inspector/log", headers: session))
      return answers
    }
    // Enter where it runs: a new link, good once.
    running.send("\n")
    let next = try await firstLine(of: running)
    let nextToken = try #require(next.wholeMatch(of: pattern)).2
    #expect(next.hasPrefix(origin + "/?token=") && nextToken != token)
    let fresh = await onThread { redeem(String(nextToken))?.status }
    #expect(fresh == 200)
    let stopped = await onThread { running.stop() }
    #expect(answers.map { $0?.status } == [200, 401, 200, 401, 200, 403, 202, 200, 200])
    for answer in answers.compactMap({ $0 }) {
      #expect(isHardened(answer), "\(answer.status)")
      #expect(!answer.text.contains(token))
      #expect(!answer.headers.contains { $0.value.contains(token) })
    }
    #expect(answers[4]?.text.contains(#""mode":"web""#) == true)
    #expect(answers[6]?.text.contains(#""seq":"#) == true)
    #expect(answers[8]?.text.contains(#""origin":"web""#) == true)
    #expect(stopped.status == 0)
    #expect(stopped.stdout == url + "\n" + next + "\n", "nothing on stdout but the addresses")
    #expect(!stopped.stderr.contains(token))
    let written = Self.files(under: state)
    #expect(written.contains { $0.0.hasSuffix("events.jsonl") })
    for (path, data) in written {
      #expect(data.range(of: Data(token.utf8)) == nil, "\(path)")
    }
  }

  @Test func susiServeWebServesThePagesAndKeySessions() async throws {
    let state = temporaryDirectory()
    let initialized = try await susi.run(["serve", "keys", "init", "--state-dir", state])
    let key = initialized.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let running = try start(["serve", "--web", "--state-dir", state, "--port", "0"])
    defer { running.stop() }
    let first = try await firstLine(of: running)
    let port = try #require(
      first.split(separator: ":").last.flatMap { Int($0) }, "printed: \(first)")
    let origin = "http://127.0.0.1:\(port)"
    let answers = await onThread { () -> [Answer?] in
      var answers: [Answer?] = [exchange(port: port, "GET", "/web/")]
      answers.append(exchange(port: port, "GET", "/state"))
      let signIn = exchange(
        port: port, "POST", "/session",
        headers: [("Origin", origin), ("Content-Type", "application/json")],
        body: #"{"key":"\#(key)"}"#)
      answers.append(signIn)
      let id = signIn.flatMap(WebFixture.sessionID) ?? ""
      answers.append(exchange(port: port, "GET", "/state", headers: [("X-Susi-Session", id)]))
      return answers
    }
    let status = await onThread { running.stop().status }
    #expect(answers.map { $0?.status } == [200, 401, 200, 200])
    #expect(answers[0]?.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(status == 0)
  }

  @Test func openHandsThePrintedURLToXdgOpenOrSaysItIsMissing() async throws {
    let state = temporaryDirectory()
    let tools = temporaryDirectory()
    let opened = tools + "/opened"
    let script = "#!/bin/sh\nprintf '%s' \"$1\" > \(opened).tmp && mv \(opened).tmp \(opened)\n"
    try Data(script.utf8).write(to: URL(fileURLWithPath: tools + "/xdg-open"))
    chmod(tools + "/xdg-open", 0o755)
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let running = try start(
      ["web", "--open", "--state-dir", state, "--port", "0"], path: tools + ":" + path)
    defer { running.stop() }
    let url = try await firstLine(of: running)
    // The fake xdg-open renames its file into place once written; wait for it (120 s at most).
    let seen = await onThread { () -> String? in
      let deadline = Date().addingTimeInterval(120)
      while Date() < deadline {
        if let data = FileManager.default.contents(atPath: opened) {
          return String(decoding: data, as: UTF8.self)
        }
        usleep(10_000)
      }
      return nil
    }
    // xdg-open got a file only this user can read, which leads to the URL: the token is on no
    // command line. The file goes when susi web stops.
    let file = try #require(seen)
    #expect(file.hasPrefix(state + "/") && !file.contains("token"))
    let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    let page = try String(contentsOfFile: file, encoding: .utf8)
    #expect(page.contains(#"content="0;url=\#(url)""#))
    let status = await onThread { running.stop().status }
    #expect(status == 0)
    #expect(!FileManager.default.fileExists(atPath: file))

    // With no xdg-open on the PATH, susi web says so and keeps serving.
    let empty = temporaryDirectory()
    let alone = try start(
      ["web", "--open", "--state-dir", temporaryDirectory(), "--port", "0"], path: empty)
    defer { alone.stop() }
    let address = try await firstLine(of: alone)
    let port = try #require(address.split(separator: ":").last?.split(separator: "/").first)
    // Waits for the note on stderr (120 s at most).
    _ = await onThread { alone.waitFor { $0.errors.contains("not installed") } }
    let note = alone.errors
    let answer = await onThread { exchange(port: Int(port) ?? 0, "GET", "/") }
    let aloneStatus = await onThread { alone.stop().status }
    #expect(note.contains("susi web: xdg-open is not installed; open the URL above yourself"))
    #expect(answer?.status == 200)
    #expect(aloneStatus == 0)
  }

  @Test func susiWebRefusesAHostOffLoopback() async throws {
    let run = try await susi.run([
      "web", "--host", "0.0.0.0", "--state-dir", temporaryDirectory(),
    ])
    let (status, text) = (run.status, run.stderr)
    #expect(status == 64)
    #expect(text.contains("susi serve --web"))
  }
}
