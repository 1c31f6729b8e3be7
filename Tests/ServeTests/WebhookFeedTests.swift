import Foundation
import SusiClock
import SusiCore
import SusiHTTPServer
import SusiHTTPTesting
import SusiJSON
import SusiStore
import Synchronization
import Testing

@testable import SusiServe

/// The server-sent event stream.
@Suite struct WebhookFeedTests {
  func line(_ seq: Int, type: String = "setServer", cause: Int? = nil) -> [UInt8] {
    let causeText = cause.map { ",\"cause\":\($0)" } ?? ""
    return Array(
      #"{"v":2,"seq":\#(seq),"at":"2026-11-21T10:00:00.000Z","origin":"test"\#(causeText),"type":"\#(type)","payload":{"url":"embedded"},"crc":"00000000"}"#
        .utf8)
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
    // A failed wait above returns instead of trapping here, which would end the whole run.
    let resumeAfter = try #require(first.events.last).id
    let resumed = Task {
      try await EventStreamSession(
        feed: f.service.feed, clock: f.clock, after: resumeAfter
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
    await f.clock.advance(by: .milliseconds(15_000))
    await collector.waitFor(text: ": keep-alive")
    stream.cancel()
    _ = try? await stream.value
  }

  @Test func aStreamThatSendsNothingIsClosedAfterTheIdleLimit() async throws {
    let f = try await WebhookFixture.make()
    let collector = SSECollector()
    let stream = Task {
      try await EventStreamSession(
        feed: f.service.feed, clock: f.clock, after: 1, heartbeatInterval: 15_000,
        idleLimit: 45_000
      ).run {
        collector.append($0)
      }
    }
    for _ in 0..<3 {
      await f.clock.waitForSleepers(count: 1)
      await f.clock.advance(by: .milliseconds(15_000))
    }
    // Ended by itself, with two heartbeats sent and no third.
    try await stream.value
    #expect(collector.text.components(separatedBy: ": keep-alive").count == 3)
  }

  @Test func oneKeyHoldsAtMostItsShareOfStreams() async throws {
    let f = try await WebhookFixture.make()
    var open: [HTTPResponse] = []
    for _ in 0..<4 {
      let response = await f.request("GET", "/events/stream", key: f.adminKey)
      #expect(response.status == 200)
      open.append(response)
    }
    let refused = await f.request("GET", "/events/stream", key: f.adminKey)
    #expect(refused.status == 429)
    #expect(refused.json["error"]?["code"] == "too_many_streams")
    // Another key is not held back by the first one's streams.
    let other = try await f.issueKey(groups: ["admin"])
    #expect(await f.request("GET", "/events/stream", key: other).status == 200)
    // A stream that ends (here: its response dropped unsent) gives its place back.
    open.removeLast()
    #expect(await f.request("GET", "/events/stream", key: f.adminKey).status == 200)
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

  func waitFor(seq: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
    await waitUntil(sourceLocation: sourceLocation) { text in
      SSECollector.parse(text).last.map { $0.id >= seq } ?? false
    }
  }

  func waitFor(text wanted: String, sourceLocation: SourceLocation = #_sourceLocation) async {
    await waitUntil(sourceLocation: sourceLocation) { $0.contains(wanted) }
  }

  /// Returns once the text written so far satisfies `condition`; after a minute it records a
  /// failure instead of waiting for ever.
  private func waitUntil(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @escaping @Sendable (String) -> Bool
  ) async {
    let deadline = ContinuousClock.now + .seconds(hangLimitSeconds)
    // Wakes the waiter at the deadline, as a write would.
    let timer = Task {
      try? await Task.sleep(until: deadline)
      let woken = state.withLock { s in
        defer { s.watchers = [] }
        return s.watchers
      }
      for watcher in woken { watcher.resume(returning: false) }
    }
    defer { timer.cancel() }
    while true {
      guard ContinuousClock.now < deadline else {
        Issue.record(
          "the stream did not show it within \(hangLimitSeconds) s", sourceLocation: sourceLocation)
        return
      }
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
