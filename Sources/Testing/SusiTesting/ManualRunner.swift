public import SusiCore
import SusiCoreTesting
public import SusiStore
import Synchronization

/// An effects runner that performs nothing: it records each effect it is given and lets the test
/// deliver that effect's result when it chooses.
public final class ManualRunner: EffectsRunner {
  public struct Started: Sendable {
    public let effect: Effect
    public let cause: Int
    let deliver: ResultDelivery
  }

  private let started = Mutex<[Started]>([])

  public init() {}

  public func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery) {
    started.withLock { $0.append(Started(effect: effect, cause: cause, deliver: deliver)) }
  }

  /// Every effect started so far (rejections answered at once are not kept).
  public var effects: [Started] { started.withLock { $0 } }

  /// Delivers `result` for the first pending effect with this cause, and forgets that effect.
  public func deliver(_ result: Action, for cause: Int) async {
    let pending = started.withLock { list -> Started? in
      guard let index = list.firstIndex(where: { $0.cause == cause }) else { return nil }
      return list.remove(at: index)
    }
    await pending?.deliver(result)
  }

  public func waitUntilIdle(timeout: Double) async -> Bool { started.withLock { $0.isEmpty } }

  public func shutdown() async { started.withLock { $0.removeAll() } }
}
