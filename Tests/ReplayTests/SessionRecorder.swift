import Foundation
import SusiApplication
import SusiCommandLine
import SusiCore
import SusiJSON
import SusiServer
import SusiStore
import Testing

/// Records `Events/session.jsonl`: a realistic session against the built-in server that touches
/// every action type. Runs only when asked (`SUSI_RECORD_SESSION=1 swift test --filter
/// SessionRecorder`), because the recording is committed and its golden state is checked by
/// `GoldenReplayTests`; re-record after changing what the runner logs, then re-record the golden
/// state with `SUSI_RECORD_GOLDEN=1`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SUSI_RECORD_SESSION"] == "1"))
struct SessionRecorder {
  static let eventsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Events")

  @Test func recordsASessionTouchingEveryActionType() async throws {
    // A relative state folder keeps machine paths out of the recorded image path.
    let state = ".build/session-example"
    try? FileManager.default.removeItem(atPath: state)
    let log = Self.eventsFolder.appendingPathComponent("session.jsonl").path
    try? FileManager.default.removeItem(atPath: log)
    let app = try await SusiApp.start(
      CommonOptions(log: log, stateDirectory: state, fsync: "batch"), origin: .cli)
    let server = try #require(app.embedded?.baseURLString)
    var seen = Set<ActionType>()

    func run(_ action: Action, origin: EventOrigin = .cli, id: JSON? = nil) async throws
      -> [PublishedEvent]
    {
      let events = try await app.sendAndWait(action, origin: origin, id: id, timeout: 20)
      for event in events { seen.insert(event.event.action.type) }
      return events
    }

    _ = try await run(.setServer(.init(url: "embedded")))
    _ = try await run(.setServer(.init(url: "ftp://example.org")))
    _ = try await run(.signup(.init(email: "ada@example.org", password: Secret("Lovelace-1815!"))))
    _ = try await run(.login(.init(email: "ada@example.org", password: Secret("wrong password"))))
    _ = try await run(.login(.init(email: "ada@example.org", password: Secret("Lovelace-1815!"))))
    _ = try await run(.loadGroups(.init()))
    _ = try await run(.loadSkills(.init()))
    _ = try await run(.loadSkills(.init(group: "Knowledge")), origin: .jsonl, id: "skills-1")
    _ = try await run(.loadSkill(.init(group: "Knowledge", skill: "Synonyms")))
    _ = try await run(.submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 4)))
    _ = try await run(
      .submitRating(.init(group: "Knowledge", skill: "Synonyms", stars: 7)), origin: .jsonl, id: 7)
    _ = try await run(.loadUserRating(.init(group: "Knowledge", skill: "Synonyms")))
    _ = try await run(
      .loadUserRating(.init(group: "Games, Trivia and Accessories", skill: "Flip a coin")))
    _ = try await run(
      .changeSettings(
        .init(settings: [
          "theme": .string("dark"), "speechRate": .number(0.8), "enterAsSend": .bool(true),
        ])))
    _ = try await run(.syncSettings)
    for query in [
      "hi", "show me the noble gases", "show me the news", "where is Berlin",
      "world population by continent",
      "play a video", "play some music", "set volume to 40", "stop the music", "show me a painting",
      "search for susi", "what is the airspeed of an unladen swallow", "set a timer for 1 seconds",
    ] {
      _ = try await run(.sendMessage(.init(query: query)), id: .string(query))
    }
    // A planned answer that is cancelled before it is due.
    let timer = try await app.store.send(
      .sendMessage(.init(query: "set a timer for 60 seconds")), origin: .cli)
    var answer: PublishedEvent?
    for try await event in app.store.results(of: timer.seq) {
      answer = event
      break
    }
    let planned = try #require(answer)
    _ = try await run(.cancelRequest(.init(seq: planned.seq)))
    _ = try await run(.cancelRequest(.init(seq: 99_999)))
    _ = try await run(.loadHistory(.init()))
    _ = try await run(.search(.init(query: "susi")))
    _ = try await run(.loadLinkPreview(.init(url: server + "/pages/susi.html")))
    _ = try await run(.loadLinkPreview(.init(url: server + "/pages/cafe.html")))
    _ = try await run(.loadLinkPreview(.init(url: server + "/pages/no-such-page.html")))
    _ = try await run(.cacheImage(.init(url: server + "/i/susi.png")))
    _ = try await run(.logout)
    _ = try await run(.logout)
    // Access control, as the webhook frontend and `susi serve keys` record it.
    let admin = "key_5e55105e55105e55"
    let bot = "key_7a7e57a7e57a7e57"
    _ = try await run(
      .issueKey(.init(by: "local", key: admin, groups: ["admin"], label: "session admin")))
    _ = try await run(.createAccessGroup(.init(by: admin, group: "raters")), origin: .webhook)
    _ = try await run(
      .grantPrivilege(.init(by: admin, group: "raters", privilege: "submitRating")),
      origin: .webhook)
    _ = try await run(
      .revokePrivilege(.init(by: admin, group: "raters", privilege: "search")), origin: .webhook)
    _ = try await run(
      .issueKey(.init(by: admin, key: bot, groups: ["raters"], label: "rating bot")),
      origin: .webhook)
    _ = try await run(.revokeKey(.init(by: admin, key: bot)), origin: .webhook)
    // Last, so the seqs above stay as the tests that step through this log expect them.
    _ = try await run(.recoverPassword(.init(email: "ada@example.org")))
    await app.stop()
    try? FileManager.default.removeItem(atPath: state)

    let missing = Set(ActionType.allCases).subtracting(seen)
    #expect(missing.isEmpty, "the session never produced: \(missing.map(\.rawValue).sorted())")
  }
}
