import Foundation
import SusiAccess
import SusiHTTPTesting
import SusiJSON
import SusiTesting
import Testing

/// Access changes made from the command line (`susi serve keys|groups …`, another process on the
/// same log) reach a running `susi serve --web` through the log: requests on an open connection,
/// a browser session and an open event stream of the changed key all feel it within a second.
@Suite struct RevocationBinaryTests {
  let susi: SusiBinary

  init() throws {
    susi = try SusiBinary.built()
  }

  /// Runs `susi` with `arguments` on the state folder; its status and first stdout line.
  func run(_ arguments: [String], state: String) async throws -> (Int32, String) {
    let run = try await susi.run(
      arguments + ["--state-dir", state], environment: SusiBinary.isolatedEnvironment(state))
    let line = run.stdout.split(separator: "\n").first.map(String.init) ?? ""
    return (run.status, line)
  }

  /// Starts `susi serve --web` on a free loopback port; the process and its port.
  func startServer(state: String) async throws -> (SusiProcess, Int) {
    let server = try susi.start(
      ["serve", "--web", "--state-dir", state, "--port", "0"],
      environment: SusiBinary.isolatedEnvironment(state))
    let url = try await onThread { try server.nextLine() } ?? ""
    let port = try #require(url.split(separator: ":").last.flatMap { Int($0) }, "printed: \(url)")
    return (server, port)
  }

  /// What a caller holding `key` has open on the server: a keep-alive connection, a browser
  /// session and an event stream.
  struct Opened {
    let connection: LoopbackHTTPClient
    let stream: LoopbackHTTPClient
    let session: String
    let key: String
    let port: Int

    init(port: Int, key: String) async throws {
      self.port = port
      self.key = key
      connection = try LoopbackHTTPClient(port: port)
      stream = try LoopbackHTTPClient(port: port)
      let origin = ("Origin", "http://127.0.0.1:\(port)")
      let connection = connection
      let signedIn = try await onThread {
        try connection.request(
          "POST", "/session", headers: [("Content-Type", "application/json"), origin],
          body: #"{"key":"\#(key)"}"#)
      }
      #expect(signedIn.status == 200, "sign-in: \(signedIn.text)")
      // The page keeps the session id it is given and sends it in a header.
      session = try #require(
        signedIn.text.firstMatch(of: #/"session":"([A-Za-z0-9_-]+)"/#).map { String($0.1) })
      let stream = stream
      try await onThread {
        try stream.sendRequest(
          "GET", "/events/stream", headers: [("Authorization", "Bearer \(key)")])
      }
      let head = try await stream.readHead()
      #expect(head.status == 200)
      // The first chunk says how soon to reconnect: the stream is running.
      #expect(try await stream.readChunk().map { String(decoding: $0, as: UTF8.self) } != nil)
    }

    /// `GET path` with the key on the kept-alive connection; its status.
    func status(_ path: String) async -> Int {
      let connection = connection
      let key = key
      return await onThread {
        (try? connection.request("GET", path, headers: [("Authorization", "Bearer \(key)")]))?
          .status ?? 0
      }
    }

    /// `POST /actions` with the key on the kept-alive connection; its status.
    func post() async -> Int {
      let connection = connection
      let key = key
      return await onThread {
        (try? connection.request(
          "POST", "/actions",
          headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
          body: #"{"type":"loadGroups","payload":{}}"#))?.status ?? 0
      }
    }

    /// `GET /session` with the browser session's id (on a connection of its own); its status.
    func sessionStatus() async -> Int {
      let port = port
      let session = session
      return await onThread {
        let client = try? LoopbackHTTPClient(port: port)
        defer { client?.close() }
        return (try? client?.request("GET", "/session", headers: [("X-Susi-Session", session)]))?
          .status ?? 0
      }
    }

    /// Reads the event stream until it ends; when it ended, or nil when it failed instead (or
    /// the read timed out).
    func streamEnd() async -> ContinuousClock.Instant? {
      let stream = stream
      return await onThread {
        do {
          while try stream.readChunkBlocking() != nil {}
          return ContinuousClock.now
        } catch {
          return nil
        }
      }
    }
  }

  /// How soon each effect must be seen after the revocation: within 1 s, the goal, on a
  /// machine with a core to spare. On one whose load average is above its number of cores (a
  /// busy CI box, every other suite running beside this one) nothing is that quick, and the
  /// effect only has to come (within the waits' `hangLimitSeconds`).
  static var goal: Duration {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
      let load = text.split(separator: " ").first.flatMap({ Double($0) }),
      load <= Double(ProcessInfo.processInfo.activeProcessorCount)
    else { return .seconds(hangLimitSeconds) }
    return .seconds(1)
  }

  /// Waits until `condition` holds (at most `hangLimitSeconds`, then records a failure); when it was first
  /// seen to hold.
  static func firstInstant(_ what: String, _ condition: () async -> Bool) async
    -> ContinuousClock.Instant
  {
    await waitUntil(what, condition)
    return ContinuousClock.now
  }

  @Test func aKeyRevokedFromTheCommandLineIsRefusedEverywhereWithinASecond() async throws {
    let state = temporaryDirectory()
    let (initStatus, _) = try await run(["serve", "keys", "init"], state: state)
    #expect(initStatus == 0)
    let (server, port) = try await startServer(state: state)
    defer { server.stop() }
    // Issued beside the running server: it reads the keys file again when the log says so.
    let (issued, key) = try await run(
      ["serve", "keys", "issue", "--groups", "default"], state: state)
    #expect(issued == 0)
    let id = try #require(KeyToken(key)?.keyID)
    let probe = try LoopbackHTTPClient(port: port)
    await waitUntil("the key issued in another process works") {
      let status = await onThread {
        (try? probe.request("GET", "/state", headers: [("Authorization", "Bearer \(key)")]))?
          .status
      }
      return status == 200
    }

    let opened = try await Opened(port: port, key: key)
    #expect(await opened.status("/state") == 200)
    #expect(await opened.post() == 202)
    #expect(await opened.sessionStatus() == 200)
    async let ended = opened.streamEnd()

    let (revoked, _) = try await run(["serve", "keys", "revoke", id], state: state)
    #expect(revoked == 0)
    let revokedAt = ContinuousClock.now
    // Each effect is watched at once, so none is timed behind another's wait.
    async let refused = Self.firstInstant("the open connection is refused") {
      await opened.status("/state") == 401
    }
    async let signedOut = Self.firstInstant("the browser session ends") {
      await opened.sessionStatus() == 401
    }
    let refusedAt = await refused
    #expect(refusedAt - revokedAt < Self.goal, "refused only after \(refusedAt - revokedAt)")
    let signedOutAt = await signedOut
    #expect(
      signedOutAt - revokedAt < Self.goal,
      "the session ended only after \(signedOutAt - revokedAt)")
    #expect(await opened.post() == 401)
    let end = try #require(await ended, "the event stream of the revoked key ended")
    #expect(end - revokedAt < Self.goal, "the stream ended only after \(end - revokedAt)")
    let status = await onThread { server.stop().status }
    #expect(status == 0)
  }

  @Test func aPrivilegeRevokedFromTheCommandLineIsMissedWithinASecond() async throws {
    let state = temporaryDirectory()
    let (issued, key) = try await run(
      ["serve", "keys", "issue", "--groups", "default"], state: state)
    #expect(issued == 0)
    let (server, port) = try await startServer(state: state)
    defer { server.stop() }
    let opened = try await Opened(port: port, key: key)
    #expect(await opened.status("/state") == 200)
    async let ended = opened.streamEnd()

    for privilege in ["state.read", "events.read"] {
      let (status, _) = try await run(
        ["serve", "groups", "revoke", "default", privilege], state: state)
      #expect(status == 0)
    }
    let revokedAt = ContinuousClock.now
    let refusedAt = await Self.firstInstant("the state is refused") {
      await opened.status("/state") == 403
    }
    #expect(refusedAt - revokedAt < Self.goal, "refused only after \(refusedAt - revokedAt)")
    let end = try #require(await ended, "the event stream ended once events.read was revoked")
    #expect(end - revokedAt < Self.goal, "the stream ended only after \(end - revokedAt)")
    // What the key still holds still works.
    #expect(await opened.post() == 202)
    #expect(await opened.sessionStatus() == 200)
    let status = await onThread { server.stop().status }
    #expect(status == 0)
  }
}
