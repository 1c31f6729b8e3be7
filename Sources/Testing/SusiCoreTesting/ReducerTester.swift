public import SusiCore
import SusiJSON
public import Testing

/// Drives `reduce` the way a store would and checks every step exhaustively, in the manner of
/// TCA's `TestStore`: each `send`/`receive` states the exact change to the state, the exact
/// effects and the results given at once (`rejected:` for a refusal), and anything else is a
/// test failure.
public struct ReducerTester {
  public private(set) var state: State
  /// The seq the next event gets.
  public private(set) var nextSeq: Int
  /// The time stamped on the next event; advance it with `advance(by:)`.
  public var now: Timestamp

  public init(state: State = State(), firstSeq: Int = 1, now: Timestamp = ReducerTester.epoch) {
    self.state = state
    self.nextSeq = firstSeq
    self.now = now
  }

  /// 2026-11-22T10:00:00.000Z, the default time of the first event.
  public static let epoch = Timestamp(milliseconds: 1_795_341_600_000)

  public mutating func advance(by milliseconds: Int64) {
    now = now.adding(milliseconds: milliseconds)
  }

  /// Sends an intent and checks the resulting state and effects. Returns the event's seq.
  @discardableResult
  public mutating func send(
    _ action: Action, origin: EventOrigin = .test,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ update: (inout State) -> Void = { _ in },
    effects expected: [Effect] = [], results: [Action] = [], rejected reason: String? = nil
  ) -> Int {
    step(
      Event(seq: nextSeq, at: now, origin: origin, action: action), sourceLocation, update,
      Reaction(effects: expected, results: Self.results(results, rejected: reason)))
  }

  /// Feeds a result caused by the event `cause` and checks the state and effects.
  @discardableResult
  public mutating func receive(
    _ action: Action, cause: Int?,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ update: (inout State) -> Void = { _ in },
    effects expected: [Effect] = [], results: [Action] = [], rejected reason: String? = nil
  ) -> Int {
    step(
      Event(seq: nextSeq, at: now, origin: .runner, cause: cause, action: action), sourceLocation,
      update, Reaction(effects: expected, results: Self.results(results, rejected: reason)))
  }

  private static func results(_ results: [Action], rejected reason: String?) -> [Action] {
    results + (reason.map { [.actionRejected(Action.ActionRejected(reason: $0))] } ?? [])
  }

  /// Sets the state up without checking (a known starting point for a test).
  public mutating func prepare(_ update: (inout State) -> Void) { update(&state) }

  private mutating func step(
    _ event: Event, _ sourceLocation: SourceLocation, _ update: (inout State) -> Void,
    _ expected: Reaction
  ) -> Int {
    var expectedState = state
    update(&expectedState)
    let reaction = reduce(&state, event)
    #expect(
      reaction.effects == expected.effects, "effects of \(event.action.type) #\(event.seq)",
      sourceLocation: sourceLocation)
    #expect(
      reaction.results == expected.results, "results of \(event.action.type) #\(event.seq)",
      sourceLocation: sourceLocation)
    if state != expectedState {
      Issue.record(
        Comment(
          rawValue: "state after \(event.action.type) #\(event.seq) differs:\n"
            + Self.difference(expectedState, state)),
        sourceLocation: sourceLocation)
    }
    nextSeq += 1
    return event.seq
  }

  /// A readable difference between two states: the top-level fields that differ.
  public static func difference(_ expected: State, _ actual: State) -> String {
    guard case .object(let e)? = Optional(expected.json),
      case .object(let a)? = Optional(actual.json)
    else {
      return "(unreadable)"
    }
    var lines: [String] = []
    for key in Set(e.keys).union(a.keys).sorted() where e[key] != a[key] {
      lines.append(
        "  \(key):\n    expected \(e[key]?.compactText ?? "nothing")\n    actual   \(a[key]?.compactText ?? "nothing")"
      )
    }
    return lines.isEmpty
      ? "  (only in fields the JSON form does not show)" : lines.joined(separator: "\n")
  }
}
