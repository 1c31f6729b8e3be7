import Synchronization

/// Keeps idle keep-alive connections per origin and bounds how many connections each origin
/// has open at once; a request beyond the bound waits for a connection to come back.
final class ConnectionPool: Sendable {
  /// What a holder may do: reuse an idle connection, or open a new one (its slot is counted).
  enum Lease {
    case reuse(ClientConnection)
    case open
  }

  private struct Origin {
    var idle: [ClientConnection] = []
    /// Connections open or being opened, idle ones included.
    var open = 0
    var waiters: [(id: Int, continuation: CheckedContinuation<Lease?, Never>)] = []
  }

  private struct Book {
    var origins: [String: Origin] = [:]
    var nextWaiter = 0
  }

  /// Most connections to one origin at once.
  let maximumPerOrigin: Int
  /// Idle connections older than this are closed instead of reused, in seconds.
  let idleLifetime: Double
  private let book = Mutex(Book())

  init(maximumPerOrigin: Int, idleLifetime: Double) {
    self.maximumPerOrigin = max(1, maximumPerOrigin)
    self.idleLifetime = idleLifetime
  }

  /// A connection to reuse or the right to open one; waits while the origin is at its bound.
  func acquire(_ key: String) async throws(TransportError) -> Lease {
    let now = Deadline.now()
    let immediate = book.withLock { book -> Lease? in
      var origin = book.origins[key] ?? Origin()
      defer { book.origins[key] = origin }
      while let connection = origin.idle.popLast() {
        if now - connection.idleSince < idleLifetime && connection.isUsableIdle {
          return .reuse(connection)
        }
        origin.open -= 1
      }
      guard origin.open < maximumPerOrigin else { return nil }
      origin.open += 1
      return .open
    }
    if let immediate { return immediate }
    let id = book.withLock { book in
      book.nextWaiter += 1
      return book.nextWaiter
    }
    let lease = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Lease?, Never>) in
        let handled = book.withLock { book -> Lease?? in
          if Task.isCancelled { return .some(nil) }
          var origin = book.origins[key] ?? Origin()
          defer { book.origins[key] = origin }
          // A connection may have come back between the first look and now.
          if let connection = origin.idle.popLast() { return .some(.reuse(connection)) }
          if origin.open < maximumPerOrigin {
            origin.open += 1
            return .some(.open)
          }
          origin.waiters.append((id, continuation))
          return .none
        }
        if let handled { continuation.resume(returning: handled) }
      }
    } onCancel: {
      let waiter = book.withLock { book -> CheckedContinuation<Lease?, Never>? in
        guard let index = book.origins[key]?.waiters.firstIndex(where: { $0.id == id }) else {
          return nil
        }
        return book.origins[key]?.waiters.remove(at: index).continuation
      }
      waiter?.resume(returning: nil)
    }
    guard let lease else { throw .cancelled }
    return lease
  }

  /// Gives a connection back: kept for reuse when `reusable`, closed otherwise. A waiting
  /// request gets it (or the freed slot) first.
  func release(_ connection: ClientConnection, reusable: Bool) {
    connection.idleSince = Deadline.now()
    let key = connection.poolKey
    let handOff = book.withLock { book -> (CheckedContinuation<Lease?, Never>, Lease)? in
      var origin = book.origins[key] ?? Origin()
      defer { book.origins[key] = origin }
      if !origin.waiters.isEmpty {
        let waiter = origin.waiters.removeFirst().continuation
        return (waiter, reusable ? .reuse(connection) : .open)
      }
      if reusable {
        origin.idle.append(connection)
      } else {
        origin.open -= 1
      }
      return nil
    }
    if let (waiter, lease) = handOff { waiter.resume(returning: lease) }
  }

  /// Returns the slot of a connection that was never opened (connect failed, cancelled).
  func releaseUnopened(_ key: String) {
    let waiter = book.withLock { book -> CheckedContinuation<Lease?, Never>? in
      var origin = book.origins[key] ?? Origin()
      defer { book.origins[key] = origin }
      if !origin.waiters.isEmpty { return origin.waiters.removeFirst().continuation }
      origin.open -= 1
      return nil
    }
    waiter?.resume(returning: .open)
  }

  /// How many connections to `key` are open (idle ones included) and idle, for tests.
  func counts(_ key: String) -> (open: Int, idle: Int) {
    book.withLock { book in
      let origin = book.origins[key] ?? Origin()
      return (origin.open, origin.idle.count)
    }
  }
}
