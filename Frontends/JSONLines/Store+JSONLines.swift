import SusiCore
import SusiStore

extension Store {
  /// Starts forwarding events: makes the writer for the current seq, registers `forward` for
  /// every later event, and returns the state now — all in one turn, so no event falls between.
  func startForwarding<Writer: Sendable>(
    makeWriter: @Sendable (_ seq: Int) -> Writer,
    forward: @escaping @Sendable (Writer, PublishedEvent) -> Void
  ) -> (state: State, seq: Int, writer: Writer, token: Int) {
    let writer = makeWriter(lastSeq)
    let token = observe { forward(writer, $0) }
    return (state, lastSeq, writer, token)
  }
}
