import SusiCore
import SusiDelivery
import Testing

@Suite struct EventFilterTests {
  @Test func noNamesOrAStarLetEveryEventThrough() {
    for filter in [EventFilter(names: []), ["*"]] {
      #expect(filter.isEveryEvent)
      #expect(filter.admits(.ratingSubmitted))
      #expect(filter.names == ["*"])
    }
  }

  @Test func namedTypesLetOnlyThemThrough() {
    let filter: EventFilter = ["ratingSubmitted", "messageReceived", "*"]
    #expect(filter.types == [.ratingSubmitted, .messageReceived])
    #expect(filter.admits(.messageReceived))
    #expect(!filter.admits(.requestFailed))
    #expect(filter.names == ["messageReceived", "ratingSubmitted"])
  }

  @Test func anUnknownNameIsKeptAndMakesTheSubscriberAProblem() throws {
    let filter: EventFilter = ["messageRecieved"]
    #expect(filter.unknown == ["messageRecieved"])
    #expect(!filter.admits(.messageReceived))
    #expect(filter.names == ["messageRecieved"])
    let subscriber = Subscriber(
      id: "hook", url: "http://127.0.0.1:9/hook", events: filter,
      secret: WebhookSecret.generate())
    #expect(subscriber.problem == "subscriber hook: there is no event type 'messageRecieved'")
  }
}
