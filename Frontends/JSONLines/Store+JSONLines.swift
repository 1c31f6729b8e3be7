import SusiCore
import SusiStore

extension Store {
  /// The state and the seq of the last event, read together so no event falls between them.
  func stateAndSeq() -> (state: State, seq: Int) { (state, lastSeq) }
}
