import Foundation
import SusiCore
import SusiJSON
import SusiStore
import SusiWebhook
import Synchronization
import Testing

/// The event feed, reading the log file back, and the server-sent event stream.
@Suite struct WebhookFeedTests {
  func line(_ seq: Int, type: String = "setServer", cause: Int? = nil) -> [UInt8] {
    let causeText = cause.map { ",\"cause\":\($0)" } ?? ""
    return Array(
      #"{"v":2,"seq":\#(seq),"at":"2026-11-21T10:00:00.000Z","origin":"test"\#(causeText),"type":"\#(type)","payload":{"url":"embedded"},"crc":"00000000"}"#
        .utf8)
  }

  @Test func feedServesRecentEventsFromItsRingAndOlderOnesFromHistory() throws {
    let sink = MemoryEventSink()
    for seq in 1...10 { _ = try sink.append(line(seq)) }
    let feed = EventFeed(history: MemoryEventHistory(sink), lastSeq: 10, capacity: 3)
    for seq in 11...20 {
      _ = try sink.append(line(seq))
      feed.publish(try FeedEvent(line: line(seq)))
    }
    #expect(try feed.events(after: 17, limit: 10).map(\.seq) == [18, 19, 20])
    #expect(try feed.events(after: 0, limit: 5).map(\.seq) == [1, 2, 3, 4, 5])
    #expect(try feed.events(after: 12, limit: 3).map(\.seq) == [13, 14, 15])
    #expect(try feed.events(after: 20, limit: 3).isEmpty)
    #expect(try feed.events(after: 19, limit: 3).map(\.line) == [line(20)])
  }

  @Test func ringKeepsWithinItsByteBoundAndFallsBackToHistory() throws {
    let sink = MemoryEventSink()
    let feed = EventFeed(
      history: MemoryEventHistory(sink), lastSeq: 0, capacity: 100,
      maximumBytes: line(1).count * 2 + 10)
    for seq in 1...10 {
      _ = try sink.append(line(seq))
      feed.publish(try FeedEvent(line: line(seq)))
    }
    // Only the newest two fit, but every event is still readable.
    #expect(try feed.events(after: 0, limit: 100).map(\.seq) == Array(1...10))
    #expect(try feed.events(after: 8, limit: 100).map(\.seq) == [9, 10])
    let huge = FeedEvent(
      seq: 11, type: "setServer", cause: nil, line: Array(repeating: 0x20, count: 10_000))
    feed.publish(huge)
    #expect(try feed.events(after: 10, limit: 5) == [huge])
  }

  @Test func feedFollowsTheStoreOnlyOnceAReaderWaitsAndMissesNothing() async throws {
    let sink = MemoryEventSink()
    let store = Store(sink: sink, runner: SilentRunner(), clock: FixedWallClock())
    let feed = EventFeed(
      history: MemoryEventHistory(sink), lastSeq: 0, source: { await store.followFromNow() })
    for _ in 0..<3 { try await store.send(.setServer(.init(url: "embedded")), origin: "test") }
    // Not following yet: nothing published, reads come from the log.
    #expect(feed.publishedCount == 0)
    #expect(try feed.events(after: 0, limit: 10).map(\.seq) == [1, 2, 3])
    let reader = Task { () -> [Int] in
      await feed.waitForEvents(after: 3)
      return try feed.events(after: 0, limit: 10).map(\.seq)
    }
    await feed.follow()
    try await store.send(.setServer(.init(url: "embedded")), origin: "test")
    #expect(try await reader.value == [1, 2, 3, 4])
    #expect(feed.publishedCount == 1)
    #expect(feed.lastSeq == 4)
    await store.close()
  }

  @Test func waitingReaderWakesOnTheNextEventAndOnCancel() async throws {
    let feed = EventFeed(history: MemoryEventHistory(MemoryEventSink()), lastSeq: 0)
    async let woke: Void = feed.waitForEvents(after: 0)
    feed.publish(try FeedEvent(line: line(1)))
    await woke
    let waiting = Task { await feed.waitForEvents(after: 1) }
    waiting.cancel()
    await waiting.value
    await feed.waitForEvents(after: 0)  // already there: returns at once
  }

  @Test func logFileHistoryReadsCompleteLinesAndFindsLateSeqs() throws {
    let path = temporaryDirectory() + "/events.jsonl"
    var bytes: [UInt8] = []
    for seq in 1...1000 {
      bytes += line(
        seq, type: seq % 2 == 0 ? "serverChanged" : "setServer", cause: seq % 2 == 0 ? seq - 1 : nil
      )
      bytes.append(0x0A)
    }
    bytes += Array(#"{"v":2,"seq":1001,"at""#.utf8)  // a line still being written
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    let history = try LogFileHistory(path: path)
    let first = try history.events(after: 0, limit: 3)
    #expect(first.map(\.seq) == [1, 2, 3])
    #expect(first[1].type == "serverChanged")
    #expect(first[1].cause == 1)
    #expect(first[0].line == line(1))
    #expect(try history.events(after: 997, limit: 10).map(\.seq) == [998, 999, 1000])
    // Now from the remembered offsets.
    #expect(try history.events(after: 640, limit: 2).map(\.seq) == [641, 642])
    #expect(try history.events(after: 1000, limit: 2).isEmpty)
  }

  @Test func streamClientSeesEventsLiveAndResumesWithoutGaps() async throws {
    let f = try await WebhookFixture.make()
    let rating =
      #"{"type":"submitRating","payload":{"group":"Knowledge","skill":"Synonyms","stars":9}}"#
    let first = SSECollector()
    let session = EventStreamSession(
      feed: f.service.feed, clock: f.clock, after: f.service.feed.lastSeq)
    let live = Task {
      try await session.run {
        first.append($0)
      }
    }
    _ = await f.request("POST", "/actions", key: f.adminKey, body: rating)
    await first.waitFor(seq: 3)
    #expect(first.events.map(\.id) == [2, 3])
    live.cancel()
    _ = try? await live.value

    // Events the client missed while away.
    for _ in 0..<3 { _ = await f.request("POST", "/actions", key: f.adminKey, body: rating) }
    await f.waitForEvents(9)
    let second = SSECollector()
    let resumed = Task {
      try await EventStreamSession(
        feed: f.service.feed, clock: f.clock, after: first.events.last!.id
      ).run {
        second.append($0)
      }
    }
    await second.waitFor(seq: 9)
    _ = await f.request("POST", "/actions", key: f.adminKey, body: rating)
    await second.waitFor(seq: 11)
    resumed.cancel()
    _ = try? await resumed.value
    let all = first.events + second.events
    #expect(all.map(\.id) == Array(2...11))
    for event in all { #expect(Array(event.data.utf8) == f.sink.lines[event.id - 1]) }
  }

  @Test func idleStreamSendsAHeartbeat() async throws {
    let f = try await WebhookFixture.make()
    let collector = SSECollector()
    let stream = Task {
      try await EventStreamSession(
        feed: f.service.feed, clock: f.clock, after: 1, heartbeatInterval: 15_000
      ).run {
        collector.append($0)
      }
    }
    await f.clock.waitForSleepers(count: 1)
    f.clock.advance(by: 15_000)
    await collector.waitFor(text: ": keep-alive")
    stream.cancel()
    _ = try? await stream.value
  }
}

/// Collects what an event stream writes and reads the events back out.
final class SSECollector: Sendable {
  struct Received: Equatable {
    var id: Int
    var data: String
  }

  private let state = Mutex<(text: String, watchers: [CheckedContinuation<Bool, Never>])>(("", []))

  func append(_ bytes: [UInt8]) {
    let woken = state.withLock { s in
      s.text += String(decoding: bytes, as: UTF8.self)
      let all = s.watchers
      s.watchers = []
      return all
    }
    for watcher in woken { watcher.resume(returning: false) }
  }

  var text: String { state.withLock { $0.text } }

  var events: [Received] { Self.parse(text) }

  static func parse(_ text: String) -> [Received] {
    text.components(separatedBy: "\n\n").compactMap { block in
      var id: Int?
      var data: String?
      for line in block.split(separator: "\n") {
        if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
        if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
      }
      guard let id, let data else { return nil }
      return Received(id: id, data: data)
    }
  }

  func waitFor(seq: Int) async {
    await waitUntil { text in SSECollector.parse(text).last.map { $0.id >= seq } ?? false }
  }

  func waitFor(text wanted: String) async {
    await waitUntil { $0.contains(wanted) }
  }

  /// Returns once the text written so far satisfies `condition`.
  private func waitUntil(_ condition: @escaping @Sendable (String) -> Bool) async {
    while true {
      let done = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let now = state.withLock { s in
          if condition(s.text) { return true }
          s.watchers.append(continuation)
          return false
        }
        if now { continuation.resume(returning: true) }
      }
      if done { return }
    }
  }
}
