import Foundation
import SusiFiles
import SusiJSON
import SusiTesting
import Testing

/// The built `susi`: `susi web` prints its URL, signs a browser in with it, and the token shows
/// up nowhere else; `susi serve --web` serves the pages and key sessions.
@Suite struct WebServerBinaryTests {
  /// A running `susi` and the first line it printed.
  struct Running {
    let process: Process
    let firstLine: String
    let errors: Pipe
    let output: Pipe
    /// Ends the process after 120 s, so no read of its output can wait for ever.
    let watchdog: Task<Void, any Error>

    /// Sends SIGTERM; the exit status and everything it wrote to stderr and stdout.
    func stop() async -> (Int32, String, String) {
      watchdog.cancel()
      process.terminate()
      let process = self.process
      let errors = self.errors
      let output = self.output
      return await onThread {
        let stderr = errors.fileHandleForReading.readToEndOfInput()
        let stdout = output.fileHandleForReading.readToEndOfInput()
        process.waitUntilExit()
        return (
          process.terminationStatus, String(decoding: stderr, as: UTF8.self),
          String(decoding: stdout, as: UTF8.self)
        )
      }
    }
  }

  static func start(_ arguments: [String], path: String? = nil) async throws -> Running {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(susiBinary))
    process.arguments = arguments
    if let path {
      var environment = ProcessInfo.processInfo.environment
      environment["PATH"] = path
      process.environment = environment
    }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try ProcessLaunch.run(process)
    let watchdog = Task {
      try await Task.sleep(for: .seconds(120))
      process.terminate()
    }
    let reader = output.fileHandleForReading
    // Reads byte by byte up to the first newline, so nothing after it is taken from the pipe.
    let line = await onThread { () -> String in
      var bytes: [UInt8] = []
      while true {
        let data = reader.readAvailable(limit: 1)
        guard let byte = data.first, byte != 0x0A else { break }
        bytes.append(byte)
      }
      return String(decoding: bytes, as: UTF8.self)
    }
    return Running(
      process: process, firstLine: line, errors: errors, output: output, watchdog: watchdog)
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
    let running = try await Self.start(["web", "--state-dir", state, "--port", "0"])
    let url = running.firstLine
    let pattern = #/^http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]{43})$/#
    let match = try #require(url.wholeMatch(of: pattern), "printed: \(url)")
    let port = try #require(Int(match.1))
    let token = String(match.2)
    let origin = "http://127.0.0.1:\(port)"

    let answers = await onThread { () -> [Answer?] in
      var answers: [Answer?] = []
      answers.append(exchange(port: port, "GET", "/"))
      // One character changed (never to itself: that would be the right token).
      let wrong = token.dropLast() + (token.last == "A" ? "B" : "A")
      answers.append(exchange(port: port, "GET", "/?token=\(wrong)"))
      let signIn = exchange(port: port, "GET", "/?token=\(token)")
      answers.append(signIn)
      let cookie = signIn?.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init)
      let session = [("Cookie", cookie ?? "")]
      answers.append(exchange(port: port, "GET", "/", headers: session))
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
    let (status, stderr, stdout) = await running.stop()
    #expect(answers.map { $0?.status } == [401, 401, 303, 200, 200, 403, 202, 200, 200])
    for answer in answers.compactMap({ $0 }) {
      #expect(isHardened(answer), "\(answer.status)")
      #expect(!answer.text.contains(token))
      #expect(!answer.headers.contains { $0.value.contains(token) })
    }
    #expect(answers[4]?.text.contains(#""mode":"web""#) == true)
    #expect(answers[6]?.text.contains(#""seq":"#) == true)
    #expect(answers[8]?.text.contains(#""origin":"web""#) == true)
    #expect(status == 0)
    #expect(stdout.isEmpty)
    #expect(!stderr.contains(token))
    let written = Self.files(under: state)
    #expect(written.contains { $0.0.hasSuffix("events.jsonl") })
    for (path, data) in written {
      #expect(data.range(of: Data(token.utf8)) == nil, "\(path)")
    }
  }

  @Test func susiServeWebServesThePagesAndKeySessions() async throws {
    let state = temporaryDirectory()
    let initialize = Process()
    initialize.executableURL = URL(fileURLWithPath: try #require(susiBinary))
    initialize.arguments = ["serve", "keys", "init", "--state-dir", state]
    let keyOutput = Pipe()
    initialize.standardOutput = keyOutput
    try ProcessLaunch.run(initialize)
    let key = await onThread {
      let data = keyOutput.fileHandleForReading.readToEndOfInput()
      initialize.waitUntilExit()
      return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let running = try await Self.start(["serve", "--web", "--state-dir", state, "--port", "0"])
    let port = try #require(running.firstLine.split(separator: ":").last.flatMap { Int($0) })
    let origin = "http://127.0.0.1:\(port)"
    let answers = await onThread { () -> [Answer?] in
      var answers: [Answer?] = [exchange(port: port, "GET", "/web/")]
      answers.append(exchange(port: port, "GET", "/state"))
      let signIn = exchange(
        port: port, "POST", "/session",
        headers: [("Origin", origin), ("Content-Type", "application/json")],
        body: #"{"key":"\#(key)"}"#)
      answers.append(signIn)
      let cookie = signIn?.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init)
      answers.append(exchange(port: port, "GET", "/state", headers: [("Cookie", cookie ?? "")]))
      return answers
    }
    let (status, _, _) = await running.stop()
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
    let running = try await Self.start(
      ["web", "--open", "--state-dir", state, "--port", "0"], path: tools + ":" + path)
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
    let (status, _, _) = await running.stop()
    #expect(seen == running.firstLine)
    #expect(status == 0)

    // With no xdg-open on the PATH, susi web says so and keeps serving.
    let empty = temporaryDirectory()
    let alone = try await Self.start(
      ["web", "--open", "--state-dir", temporaryDirectory(), "--port", "0"], path: empty)
    let port = try #require(alone.firstLine.split(separator: ":").last?.split(separator: "/").first)
    let errors = alone.errors.fileHandleForReading
    // Reads stderr until the note arrives (or the watchdog ends the process: end of file).
    let note = await onThread { () -> String in
      var text = ""
      while !text.contains("not installed") {
        let data = errors.readAvailable()
        if data.isEmpty { break }
        text += String(decoding: data, as: UTF8.self)
      }
      return text
    }
    let answer = await onThread { exchange(port: Int(port) ?? 0, "GET", "/") }
    let (aloneStatus, _, _) = await alone.stop()
    #expect(note.contains("susi web: xdg-open is not installed; open the URL above yourself"))
    #expect(answer?.status == 401)
    #expect(aloneStatus == 0)
  }

  @Test func susiWebRefusesAHostOffLoopback() async throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(susiBinary))
    process.arguments = ["web", "--host", "0.0.0.0", "--state-dir", temporaryDirectory()]
    let errors = Pipe()
    process.standardError = errors
    try ProcessLaunch.run(process)
    let (status, text) = await onThread {
      let data = errors.fileHandleForReading.readToEndOfInput()
      process.waitUntilExit()
      return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
    #expect(status == 64)
    #expect(text.contains("susi serve --web"))
  }
}
