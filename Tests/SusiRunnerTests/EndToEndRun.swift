import Foundation
import SusiClock
import SusiCore
import SusiCoreTesting
import SusiEventLog
import SusiHTTPClient
import SusiHTTPTesting
import SusiHTTPTypes
import SusiJSON
import SusiRunner
import SusiServer
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// susi assembled as a frontend runs it — a durable log, the store, the effects runner on the
/// real network — talking over loopback to the embedded server, all in a fresh state folder.
///
/// Time is injected on both sides: `clock` drives the store's timestamps and the runner
/// (deadlines, planned answers), `serverClock` drives the server (token expiry).
final class EndToEndRun: Sendable {
  /// A password distinctive enough that finding it anywhere means it leaked, with the
  /// characters form encoding has to get right (`+`, `&`, `=`, `%`, a space, non-ASCII).
  static let password = "Canary+Pw&7Q=4z% Grüße-Unguessable"

  let folder: String
  let logPath: String
  let clock: ManualTimeSource
  let serverClock: ManualTimeSource
  let server: EmbeddedServer
  let transport: EndToEndCountingTransport
  let store: Store
  /// Every line the store published, gathered until the store closes.
  private let published: Task<[[UInt8]], Never>
  /// Every access token a login left in the credentials file.
  private let tokens = Mutex<Set<String>>([])

  private init(
    folder: String, clock: ManualTimeSource, serverClock: ManualTimeSource, server: EmbeddedServer,
    transport: EndToEndCountingTransport, store: Store, published: Task<[[UInt8]], Never>
  ) {
    self.folder = folder
    self.logPath = folder + "/events.jsonl"
    self.clock = clock
    self.serverClock = serverClock
    self.server = server
    self.transport = transport
    self.store = store
    self.published = published
  }

  /// Starts the server and the client in a new temporary folder.
  static func start() async throws -> EndToEndRun {
    let folder = TestScratch.root
      .appendingPathComponent("susi-e2e-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(
      atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])

    // 2020-09-07T21:16:14Z, a date from the real server's captures.
    let serverClock = ManualTimeSource(millisecondsSince1970: 1_599_513_374_000)
    let server = try await EmbeddedServer.start(
      ServerConfiguration(
        host: "127.0.0.1", port: 0,
        stateDirectory: URL(fileURLWithPath: folder).appendingPathComponent("server"), seed: 7,
        clock: serverClock))

    let clock = ManualTimeSource()
    let transport = EndToEndCountingTransport()
    var configuration = RunnerConfiguration(
      stateDirectory: folder, embeddedServerURL: server.baseURLString,
      websearchURL: server.websearchURL.absoluteString)
    configuration.clock = clock
    configuration.transport = transport
    configuration.randomSeed = 7
    configuration.timezoneOffsetMinutes = 0
    configuration.machineLanguage = "en"

    let writer = try EventLogWriter(
      path: folder + "/events.jsonl", options: .init(fsync: .never, firstSeq: 1))
    let store = Store(
      sink: FileEventSink(writer: writer), runner: SusiRunner(configuration: configuration),
      clock: clock)
    let events = store.events(after: 0)
    let published = Task {
      var lines: [[UInt8]] = []
      do {
        for try await event in events { lines.append(event.line) }
      } catch {}
      return lines
    }
    return EndToEndRun(
      folder: folder, clock: clock, serverClock: serverClock, server: server,
      transport: transport, store: store, published: published)
  }

  // MARK: Driving

  /// Sends an intent and returns its event followed by every result it caused, following
  /// chains (a planned answer is caused by the answer that carried it), in log order, as the
  /// store's `results(of:)` reports them. Returns early once `done` holds for the results
  /// gathered so far.
  func send(
    _ action: Action, until done: @escaping @Sendable ([Event]) -> Bool = { _ in false }
  ) async throws -> [Event] {
    let sent = try await store.send(action, origin: .test)
    let results = store.results(of: sent.seq)
    let waiter = Task {
      var gathered: [Event] = []
      for try await result in results {
        gathered.append(result.event)
        if done(gathered) { break }
      }
      return gathered
    }
    // A watchdog, not a timing assumption: a result that never comes fails the test instead
    // of hanging it.
    let watchdog = Task {
      try? await Task.sleep(for: .seconds(hangLimitSeconds))
      waiter.cancel()
    }
    let gathered = try await waiter.value
    watchdog.cancel()
    return [sent.event] + gathered
  }

  /// Sends an intent and returns the one result it caused (the last, when there are several).
  func result(of action: Action, sourceLocation: SourceLocation = #_sourceLocation) async throws
    -> Action
  {
    let events = try await send(action)
    let last = try #require(
      events.dropFirst().last, "\(action.type) got no result", sourceLocation: sourceLocation)
    return last.action
  }

  /// Signs `email` up and logs in with `EndToEndRun.password`; returns the token the login left
  /// in the credentials file (after checking that file is private).
  @discardableResult
  func signUpAndLogIn(
    _ email: String, validSeconds: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> String {
    let signup = try await result(
      of: .signup(.init(email: email, password: Secret(Self.password))),
      sourceLocation: sourceLocation)
    guard case .signedUp = signup else {
      Issue.record("signup failed: \(signup)", sourceLocation: sourceLocation)
      throw EndToEndFailure("signup of \(email) failed")
    }
    return try await logIn(email, validSeconds: validSeconds, sourceLocation: sourceLocation)
  }

  /// Logs `email` in with `EndToEndRun.password`; returns the stored token.
  @discardableResult
  func logIn(
    _ email: String, validSeconds: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> String {
    let login = try await result(
      of: .login(.init(email: email, password: Secret(Self.password), validSeconds: validSeconds)),
      sourceLocation: sourceLocation)
    guard case .loggedIn(let loggedIn) = login else {
      Issue.record("login failed: \(login)", sourceLocation: sourceLocation)
      throw EndToEndFailure("login of \(email) failed")
    }
    #expect(loggedIn.email == email, sourceLocation: sourceLocation)
    return try storedToken(sourceLocation: sourceLocation)
  }

  /// The folder holding the credentials files.
  var credentialsFolder: String { folder + "/credentials" }

  /// The credentials files present now.
  func credentialsFiles() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: credentialsFolder)) ?? []
    return names.sorted().map { credentialsFolder + "/" + $0 }
  }

  /// Reads the one credentials file, checks it is readable by its owner only, remembers its
  /// token for the secrets check, and returns the token.
  func storedToken(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let files = credentialsFiles()
    #expect(files.count == 1, "credentials files: \(files)", sourceLocation: sourceLocation)
    let file = try #require(files.first, sourceLocation: sourceLocation)
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    #expect(mode == 0o600, "mode \(String(mode, radix: 8))", sourceLocation: sourceLocation)
    let folderMode =
      ((try FileManager.default.attributesOfItem(atPath: credentialsFolder))[.posixPermissions]
      as? NSNumber)?.intValue ?? -1
    #expect(folderMode == 0o700, sourceLocation: sourceLocation)
    let json = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
    let token = try #require(json.object?["access_token"]?.string, sourceLocation: sourceLocation)
    #expect(token.count >= 16, sourceLocation: sourceLocation)
    tokens.withLock { _ = $0.insert(token) }
    return token
  }

  /// Delivers the planned answers due within `milliseconds` by moving the runner's clock, once
  /// a planned answer of exactly that delay is waiting.
  func advancePlannedAnswer(by milliseconds: Int64) async {
    await clock.waitForSleepers { $0.contains(milliseconds) }
    await clock.advance(by: .milliseconds(milliseconds))
  }

  // MARK: Checking the whole run

  /// Stops the client and the server, then checks what every run must hold:
  /// - replaying the log from the start gives exactly the live state;
  /// - the lines subscribers were sent are the log's lines, byte for byte;
  /// - neither the password nor any token is in the log, a published line, the state, or any
  ///   file under the state folder other than the credentials file.
  func finish(expectingTokens: Bool = true, sourceLocation: SourceLocation = #_sourceLocation)
    async throws
  {
    #expect(
      await store.drain(timeout: Double(hangLimitSeconds)), "effects still running",
      sourceLocation: sourceLocation)
    let live = await store.state
    let lastSeq = await store.lastSeq
    await store.close()
    await server.stop()
    let lines = await published.value
    defer { try? FileManager.default.removeItem(atPath: folder) }

    var recovered = Recovered()
    let torn = try LogReplay.run(path: logPath, into: &recovered)
    #expect(torn == nil, sourceLocation: sourceLocation)
    #expect(recovered.lastSeq == lastSeq, sourceLocation: sourceLocation)
    #expect(
      recovered.state == live, "replay differs: \(live.changes(to: recovered.state))",
      sourceLocation: sourceLocation)
    #expect(recovered.state.canonicalJSON() == live.canonicalJSON(), sourceLocation: sourceLocation)

    let log = Array(try Data(contentsOf: URL(fileURLWithPath: logPath)))
    let logLines = log.split(separator: 0x0A, omittingEmptySubsequences: true).map(Array.init)
    #expect(logLines.count == lastSeq, sourceLocation: sourceLocation)
    #expect(
      lines == logLines, "published lines differ from the log", sourceLocation: sourceLocation)

    let tokens = tokens.withLock { $0 }
    if expectingTokens { #expect(!tokens.isEmpty, sourceLocation: sourceLocation) }
    // The password travels form-encoded, so look for that form too.
    let encodedPassword = String(URLEncodedForm.encode([("", Self.password)]).dropFirst())
    let secrets = [Self.password, encodedPassword] + tokens.sorted()
    var places: [(name: String, bytes: [UInt8])] = [("the log", log)]
    places += lines.enumerated().map { ("published line \($0.offset + 1)", $0.element) }
    places.append(("the state's canonical JSON", live.canonicalJSON()))
    let credentials = Set(credentialsFiles())
    let files = try filesUnder(folder)
    #expect(
      files.contains(logPath), "the scan missed the log: \(files)", sourceLocation: sourceLocation)
    for file in files where !credentials.contains(file) {
      places.append((file, Array(try Data(contentsOf: URL(fileURLWithPath: file)))))
    }
    for (name, bytes) in places {
      for (index, secret) in secrets.enumerated() where bytes.contains(Array(secret.utf8)) {
        let what = index < 2 ? "the password" : "an access token"
        Issue.record("\(what) appears in \(name)", sourceLocation: sourceLocation)
      }
    }
  }

  /// Every regular file below `root`, recursively.
  private func filesUnder(_ root: String) throws -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
    var files: [String] = []
    while let relative = walker.nextObject() as? String {
      let path = root + "/" + relative
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      {
        files.append(path)
      }
    }
    return files.sorted()
  }
}

/// A step of an end-to-end run that could not go on.
struct EndToEndFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
