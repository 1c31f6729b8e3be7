import SusiDelivery
import SusiTesting
import Testing

/// Registering, removing and listing subscribers keeps the subscribers file and the cursors in
/// step.
@Suite struct SubscriberRegistryTests {
  let folder = FileManagerTestFolder()

  func registry() throws -> SubscriberRegistry {
    SubscriberRegistry(
      file: try SubscriberFile(path: folder.path + "/log.subscribers"),
      cursors: try DeliveryCursors(path: folder.path + "/log.cursors"))
  }

  func subscriber(_ id: String, events: EventFilter = [], after: Int? = nil) -> Subscriber {
    Subscriber(
      id: id, url: "http://127.0.0.1:9/\(id)", events: events, secret: WebhookSecret.generate(),
      after: after)
  }

  @Test func registeringClearsTheCursorAnEarlierSubscriberOfThatIDLeft() throws {
    let registry = try registry()
    try registry.cursors.save("hook", delivered: 7)
    try registry.register(subscriber("hook", after: 2), lastSeq: 10)
    #expect(registry.cursors.cursor("hook") == nil)
    let reloaded = try self.registry()
    #expect(reloaded.cursors.cursor("hook") == nil)
    #expect(reloaded.file.subscriber("hook")?.after == 2)
    let status = try #require(reloaded.statuses(lastSeq: 10).first)
    #expect(status.delivered == 2)
    #expect(status.backlog == 8)
  }

  @Test func withoutAfterASubscriberStartsAtTheLastEvent() throws {
    let registry = try registry()
    let added = try registry.register(subscriber("hook"), lastSeq: 9)
    #expect(added.after == 9)
    #expect(registry.file.subscriber("hook")?.after == 9)
    #expect(registry.statuses(lastSeq: 12).map(\.backlog) == [3])
  }

  @Test func aClashIsRefusedAndLeavesTheExistingCursorAlone() throws {
    let registry = try registry()
    try registry.register(subscriber("hook", after: 0), lastSeq: 0)
    try registry.cursors.save("hook", delivered: 5)
    let refusal = #expect(throws: SubscriberRefusal.self) {
      try registry.register(subscriber("hook", after: 0), lastSeq: 0)
    }
    #expect(refusal?.kind == .conflict)
    #expect(refusal?.message == "a subscriber hook exists already")
    #expect(registry.cursors.cursor("hook")?.delivered == 5)
  }

  @Test func anInvalidSubscriberIsRefusedAndNothingIsWritten() throws {
    let registry = try registry()
    var bad = subscriber("hook")
    bad.url = "ftp://example.org/hook"
    let refusal = #expect(throws: SubscriberRefusal.self) { try registry.register(bad, lastSeq: 0) }
    #expect(refusal?.kind == .invalid)
    #expect(try self.registry().file.subscribers.isEmpty)
  }

  @Test func removingForgetsTheSubscriberAndItsCursor() throws {
    let registry = try registry()
    try registry.register(subscriber("hook", after: 0), lastSeq: 0)
    try registry.register(subscriber("other", after: 0), lastSeq: 0)
    try registry.cursors.save("hook", delivered: 4)
    try registry.cursors.save("other", delivered: 3)
    try registry.remove("hook")
    let reloaded = try self.registry()
    #expect(reloaded.file.subscribers.map(\.id) == ["other"])
    #expect(reloaded.cursors.cursor("hook") == nil)
    #expect(reloaded.cursors.cursor("other")?.delivered == 3)
    let refusal = #expect(throws: SubscriberRefusal.self) { try registry.remove("hook") }
    #expect(refusal?.kind == .notFound)
    #expect(refusal?.message == "no subscriber is called 'hook'")
  }

  @Test func enablingClearsTheDisabledMarkAndKeepsTheCursor() throws {
    let registry = try registry()
    try registry.register(subscriber("hook", after: 0), lastSeq: 0)
    try registry.cursors.save("hook", delivered: 4)
    try registry.cursors.disable("hook", reason: "410 Gone", at: 1_795_341_600)
    try registry.enable("hook")
    let status = try #require(try self.registry().statuses(lastSeq: 6).first)
    #expect(status.disabled == nil)
    #expect(status.delivered == 4)
    let refusal = #expect(throws: SubscriberRefusal.self) { try registry.enable("nobody") }
    #expect(refusal?.kind == .notFound)
    #expect(refusal?.message == "no subscriber is called 'nobody'")
  }

  @Test func statusesReadDeliveredBacklogAndDisabledFromTheFilesInFileOrder() throws {
    let registry = try registry()
    try registry.register(
      subscriber("zeta", events: ["ratingSubmitted", "messageReceived"], after: 0), lastSeq: 0)
    try registry.register(subscriber("alpha", after: 4), lastSeq: 0)
    try registry.register(subscriber("ahead", after: 0), lastSeq: 0)
    try registry.cursors.save("zeta", delivered: 3)
    try registry.cursors.disable("zeta", reason: "410 Gone", at: 1_795_341_600)
    try registry.cursors.save("ahead", delivered: 20)
    let statuses = try self.registry().statuses(lastSeq: 10)
    #expect(statuses.map(\.id) == ["zeta", "alpha", "ahead"])
    #expect(statuses.map(\.delivered) == [3, 4, 20])
    #expect(statuses.map(\.backlog) == [7, 6, 0])
    #expect(statuses.map(\.disabled) == ["410 Gone", nil, nil])
    #expect(statuses.map(\.events) == [["messageReceived", "ratingSubmitted"], ["*"], ["*"]])
    #expect(statuses.map(\.phase) == ["stopped", "stopped", "stopped"])
  }
}
