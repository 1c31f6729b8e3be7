import Foundation
import SusiClock
import SusiCore
import SusiCoreTesting
import SusiHTTPTesting
import SusiStore
import SusiTesting
import Synchronization
import Testing

/// A conversation: `request` returns the first result of its own intent; every other event
/// reaches the other-events handler, in log order, held until the handler is set.
@Suite struct ConversationTests {
  /// What the other-events handler received.
  final class Followed: Sendable {
    private let received = Mutex<[PublishedEvent]>([])
    func add(_ event: PublishedEvent) { received.withLock { $0.append(event) } }
    var events: [PublishedEvent] { received.withLock { $0 } }
    var seqs: [Int] { events.map(\.seq) }
  }

  @Test func requestReturnsTheFirstResultAndASecondResultIsAnotherEvent() async throws {
    let runner = ManualRunner()
    let clock = ManualTimeSource(ReducerTester.epoch)
    let store = Store(sink: MemoryEventSink(), runner: runner, clock: clock)
    let conversation = await store.conversation(origin: .cli)
    let others = Followed()
    conversation.onOtherEvents { others.add($0) }

    let login = Task {
      try await conversation.request(
        .login(.init(email: "ada@example.org", password: Secret("a password"))))
    }
    await waitUntil("the login is waited for") { conversation.waitingFor == [1] }
    let expiresAt = Timestamp(milliseconds: ReducerTester.epoch.milliseconds + 1000)
    await runner.deliver(.loggedIn(.init(email: "ada@example.org", expiresAt: expiresAt)), for: 1)
    let (loginSeq, loggedIn) = try await login.value
    #expect(loginSeq == 1)
    #expect(loggedIn?.action.type == .loggedIn)
    #expect(conversation.waitingFor.isEmpty)
    #expect(!conversation.requests.sending)

    // Once the session expired, a sync is refused at once (its first result) and a logout
    // starts, whose result is the intent's second.
    clock.setWallClock(millisecondsSince1970: expiresAt.milliseconds + 1000)
    let (syncSeq, refused) = try await conversation.request(.syncSettings)
    #expect(refused?.action.type == .actionRejected)
    await runner.deliver(.loggedOut(.init(reason: "session expired")), for: syncSeq)
    await conversation.waitUntilSeen(await store.lastSeq)
    #expect(others.events.map(\.event.action.type) == [.loggedOut])
    #expect(others.events.map(\.event.cause) == [syncSeq])
    await store.close()
  }

  @Test func anotherProcesssIntentWithTheSameOriginIsAnotherEvent() async throws {
    let folder = TestScratch.root
      .appendingPathComponent("susi-conversation-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let clock = ManualTimeSource(ReducerTester.epoch)
    let here = try SharedStoreTests.Peer(log: folder + "/events.jsonl", clock: clock)
    let there = try SharedStoreTests.Peer(log: folder + "/events.jsonl", clock: clock)
    let conversation = await here.store.conversation(origin: .cli)
    let others = Followed()
    conversation.onOtherEvents { others.add($0) }

    // `susi ask` beside a chat: the same origin, another process.
    let asked = try await there.store.send(.loadGroups(.init()), origin: .cli)
    await there.runner.deliver(.groupsLoaded(.init(groups: ["There"])), for: asked.seq)
    let own = Task { try await conversation.request(.loadGroups(.init())) }
    await waitUntil("this process's request starts") { here.runner.effects.count == 1 }
    let ownSeq = try #require(here.runner.effects.first).cause
    await here.runner.deliver(.groupsLoaded(.init(groups: ["Here"])), for: ownSeq)
    let (seq, result) = try await own.value
    #expect(seq == ownSeq)
    #expect(result?.cause == ownSeq)

    await conversation.waitUntilSeen(await here.store.lastSeq)
    #expect(others.seqs == [asked.seq, asked.seq + 1])
    #expect(others.events.map(\.byAnotherProcess) == [true, true])
    #expect(await here.store.lastSeq == ownSeq + 1)
    await here.store.close()
    await there.store.close()
  }

  @Test func otherEventsAreHeldUntilAHandlerIsSetAndKeepTheirOrder() async throws {
    let store = Store(
      sink: MemoryEventSink(), runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    for _ in 1...2 { try await store.send(.loadGroups(.init()), origin: .test) }
    let conversation = await store.conversation(origin: .cli, after: 1)
    try await store.send(.loadGroups(.init()), origin: .test)
    await conversation.waitUntilSeen(3)

    let others = Followed()
    conversation.onOtherEvents { others.add($0) }
    #expect(others.seqs == [2, 3], "held events go out as the handler is set")
    try await store.send(.loadGroups(.init()), origin: .test)
    try await store.send(.loadGroups(.init()), origin: .test)
    await conversation.waitUntilSeen(5)
    #expect(others.seqs == [2, 3, 4, 5])
    await store.close()
  }

  @Test func waitUntilSeenReturnsWhenTheStoreCloses() async throws {
    let store = Store(
      sink: MemoryEventSink(), runner: ManualRunner(), clock: ManualTimeSource(ReducerTester.epoch))
    let conversation = await store.conversation(origin: .cli)
    let waiting = Task { await conversation.waitUntilSeen(1) }
    await store.close()
    await waiting.value
  }
}
