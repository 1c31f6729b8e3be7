import SusiCore
import SusiStore

extension Store {
  /// Starts forwarding events: makes the writer for the current seq, follows every later event
  /// into it, and returns the state now — all in one turn, so no event falls between.
  func startForwarding<Writer: Sendable>(
    makeWriter: @Sendable (_ seq: Int) -> Writer,
    forward: @escaping @Sendable (Writer, [PublishedEvent]) -> Void
  ) -> (state: State, seq: Int, writer: Writer, forwarding: EventForwarding) {
    let writer = makeWriter(lastSeq)
    let forwarding = EventForwarding(events(after: lastSeq), toBatches: { forward(writer, $0) })
    return (state, lastSeq, writer, forwarding)
  }
}
