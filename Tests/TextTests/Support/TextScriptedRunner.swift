import SusiCore
import SusiStore
import Synchronization

/// An effects runner for text-frontend tests: answers each effect with the action `respond`
/// gives (nil = the request hangs until cancelled), delivers planned answers at once and records
/// every effect it was asked for.
final class TextScriptedRunner: EffectsRunner {
  private struct Books {
    var effects: [Effect] = []
    var hanging: [Int: ResultDelivery] = [:]
    var running = 0
  }
  private let books = Mutex(Books())
  private let respond: @Sendable (Effect, Int) -> Action?

  /// `respond` gets each effect and the seq of the event that asked for it.
  init(_ respond: @escaping @Sendable (Effect, Int) -> Action?) { self.respond = respond }

  /// Every effect started so far, in order.
  var effects: [Effect] { books.withLock { $0.effects } }

  func start(_ effect: Effect, cause: Int, deliver: @escaping ResultDelivery) {
    books.withLock { $0.effects.append(effect) }
    let result: Action?
    switch effect {
    case .deliverLater(_, let message): result = .messageReceived(message)
    case .cancel(let seq):
      guard let cancelled = books.withLock({ $0.hanging.removeValue(forKey: seq) }) else { return }
      send(
        .requestFailed(
          Action.RequestFailed(
            cause: seq, error: RequestError(kind: .cancelled, message: "cancelled"))), cancelled)
      return
    default: result = respond(effect, cause)
    }
    guard let result else {
      books.withLock { $0.hanging[cause] = deliver }
      return
    }
    send(result, deliver)
  }

  private func send(_ result: Action, _ deliver: @escaping ResultDelivery) {
    books.withLock { $0.running += 1 }
    Task {
      await deliver(result)
      books.withLock { $0.running -= 1 }
    }
  }

  func waitUntilIdle(timeout: Double) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while books.withLock({ $0.running > 0 }) {
      guard ContinuousClock.now < deadline else { return false }
      await Task.yield()
    }
    return true
  }

  func shutdown() async {}
}
