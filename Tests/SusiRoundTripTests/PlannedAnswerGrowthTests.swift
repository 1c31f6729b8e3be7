import SusiCore
import SusiRoundTrip
import Testing

/// A reply that plans many answers for later: each delivery logs its own answers once, so the
/// log grows with their number, not its square, and one reply plans at most a bounded number.
@Suite struct PlannedAnswerGrowthTests {
  /// A chat reply planning `count` answers, each at its own delay.
  static func reply(planning count: Int) -> [UInt8] {
    let actions = (1...count).map {
      #"{"type":"answer","expression":"reminder number \#($0) of many","plan_delay":\#($0 * 1000)}"#
    }
    return Array(
      #"{"query":"q","answers":[{"data":[],"actions":[\#(actions.joined(separator: ","))]}]}"#
        .utf8)
  }

  /// The bytes of every record `reply` leads to.
  static func loggedBytes(_ reply: [UInt8]) -> (events: Int, bytes: Int) {
    let events = RecordRoundTrip.events(for: reply)
    return (events.count, events.reduce(0) { $0 + $1.encoded().count })
  }

  @Test func theLogGrowsLinearlyWithThePlannedAnswers() {
    let small = Self.loggedBytes(Self.reply(planning: 200))
    let large = Self.loggedBytes(Self.reply(planning: 800))
    // sendMessage, the reply, one delivery each, then loadHistory, loadSkills and their replies.
    #expect(small.events == 206)
    #expect(large.events == 806)
    // Four times the answers, about four times the bytes (the square would be sixteen).
    #expect(Double(large.bytes) / Double(small.bytes) < 4.5)
    // Each answer costs a few hundred bytes: its text in the reply, and its own delivery.
    #expect(large.bytes < 800 * 400)
  }

  @Test func aReplyPlansAtMostAThousandAnswers() {
    let events = RecordRoundTrip.events(for: Self.reply(planning: 4_000))
    guard case .messageReceived(let message) = events[1].action else {
      Issue.record("\(events[1].action)")
      return
    }
    #expect(message.planned.count == 1_000)
    #expect(message.planned.last?.delayMilliseconds == 1_000_000)
    #expect(events.count == 1_006)
  }

  @Test func deliveredAnswersCarryOnlyTheirOwnAnswers() {
    let events = RecordRoundTrip.events(for: Self.reply(planning: 3))
    let delivered = events[2...4].map { event -> Action.MessageReceived? in
      if case .messageReceived(let message) = event.action { message } else { nil }
    }
    #expect(delivered.map { $0?.planned.count } == [0, 0, 0])
    #expect(
      delivered.map { $0?.answers }
        == (1...3).map {
          [.answer(expression: "reminder number \($0) of many", language: nil, mood: nil)]
        })
    #expect(events[4].at.milliseconds(since: events[1].at) == 3000)
  }
}
