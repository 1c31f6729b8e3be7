import Synchronization

/// Warnings from work that runs in the background (delivery leases, the sweep for dead nodes'
/// requests) for the operators' log. They are kept until a frontend says where they go
/// (`send(to:)`), at most `kept` of them, then passed on as they come.
public final class BackgroundWarnings: Sendable {
  /// How many warnings are kept while nobody listens; older ones are dropped.
  public static let kept = 100
  private let state = Mutex<(handler: (@Sendable (String) -> Void)?, pending: [String])>((nil, []))

  public init() {}

  /// Passes `message` on, or keeps it until there is somewhere to pass it.
  public func warn(_ message: String) {
    let handler = state.withLock { state -> (@Sendable (String) -> Void)? in
      guard let handler = state.handler else {
        state.pending.append(message)
        if state.pending.count > Self.kept { state.pending.removeFirst() }
        return nil
      }
      return handler
    }
    handler?(message)
  }

  /// Sends every warning to `handler` from now on, starting with those kept so far.
  public func send(to handler: @escaping @Sendable (String) -> Void) {
    let pending = state.withLock { state -> [String] in
      state.handler = handler
      defer { state.pending = [] }
      return state.pending
    }
    for message in pending { handler(message) }
  }
}
