import SusiCore
import SusiHTTPServer
import SusiHTTPTypes
import SusiJSON
import SusiStore
import Testing

@testable import SusiServe

/// `GET /state` is streamed in bounded pieces and is the same document as the canonical state.
@Suite struct WebhookStateTests {
  /// The most bytes handed to the connection at once: well under the size of the states below.
  let pieceBound = 128 * 1024

  /// A log of `exchanges` questions, each answered, so nothing stays in flight (the live
  /// transcript keeps the most recent 1,000 to 2,000 of its entries).
  private func chatLog(exchanges: Int) -> [[UInt8]] {
    let at = Timestamp(milliseconds: 1_795_000_000_000)
    var lines: [[UInt8]] = []
    for n in 0..<exchanges {
      let query = "question \(n) " + String(repeating: "q", count: 1100)
      let asked = Event(
        seq: 2 * n + 1, at: at, origin: .jsonl, action: .sendMessage(.init(query: query)))
      let answer = AnswerAction.answer(
        expression: "answer \(n) " + String(repeating: "a", count: 1100), language: "en", mood: nil)
      let answered = Event(
        seq: 2 * n + 2, at: at, origin: .runner, cause: 2 * n + 1,
        action: .messageReceived(.init(query: query, answers: [answer])))
      lines.append(asked.encoded())
      lines.append(answered.encoded())
    }
    return lines
  }

  @Test func aLargeStateIsStreamedInBoundedPiecesAsTheCanonicalDocument() async throws {
    let f = try await WebhookFixture.make(replaying: chatLog(exchanges: 4000))
    let state = await f.store.state
    #expect(state.transcript.count >= 1000)
    let canonical = state.canonicalJSON()
    #expect(canonical.count > 2_000_000)

    let admin = await f.request("GET", "/state", key: f.adminKey)
    #expect(admin.status == 200)
    #expect(admin.headers["Content-Type"] == "application/json")
    let pieces = try await admin.pieces()
    #expect(pieces.map(\.count).max() ?? 0 <= pieceBound)
    #expect(pieces.count > canonical.count / pieceBound)
    #expect(pieces.flatMap { $0 } == canonical)

    // Without key management the same document less `access`.
    let chat = try await f.issueKey(groups: ["default"])
    let plainPieces = try await f.request("GET", "/state", key: chat).pieces()
    #expect(plainPieces.map(\.count).max() ?? 0 <= pieceBound)
    var expected = try #require(try JSONParser.parse(canonical).object)
    expected["access"] = nil
    #expect(try JSONParser.parse(plainPieces.flatMap { $0 }) == .object(expected))
  }

  @Test func everyPagedFieldJoinsItsPagesIntoTheCanonicalForm() async throws {
    var state = State()
    let pages = StateDocument.entriesPerPage * 2 + 5
    for n in 0..<pages {
      state.searches["query \(n)"] = [
        SearchResult(title: "t\(n)", link: "https://example.org/\(n)")
      ]
      state.linkPreviews["https://example.org/\(n)"] = LinkPreview(
        url: "https://example.org/\(n)", title: "page \(n)")
      state.images["https://example.org/\(n).png"] = CachedImage(path: "/cache/\(n).png", bytes: n)
      state.skills["Group \(n)"] = ["s\(n)": Skill(tag: "s\(n)", group: "Group \(n)")]
      state.history.append(HistoryEntry(query: "q\(n)", answers: []))
    }
    let collected = CollectedPieces()
    try await StateDocument(state: state, includesAccess: true).write {
      try await collected.writer.write($0)
    }
    #expect(collected.all.flatMap { $0 } == state.canonicalJSON())

    let empty = CollectedPieces()
    try await StateDocument(state: State(), includesAccess: true).write {
      try await empty.writer.write($0)
    }
    #expect(empty.all.flatMap { $0 } == State().canonicalJSON())
  }
}
