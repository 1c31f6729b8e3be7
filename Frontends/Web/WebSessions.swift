import SusiCrypto
import Synchronization

/// The browser sessions of one server, in memory only: each is a random id handed out in an
/// `HttpOnly` cookie and bound to who signed in. A restart ends them all.
///
/// Ids are kept by their SHA-256, so looking one up takes no time that depends on how much of
/// a guessed id is right.
final class WebSessions: Sendable {
  /// Who a session belongs to.
  enum Holder: Sendable, Equatable {
    /// Whoever opened the URL `susi web` printed.
    case local
    /// Whoever signed in with this `susi serve` key; it lasts while the key does.
    case key(String)
  }

  /// Sessions kept at most; opening one more ends the oldest.
  static let limit = 1000

  private struct Book {
    var holders: [String: Holder] = [:]
    /// Hashed ids, oldest first.
    var order: [String] = []
  }

  private let book = Mutex(Book())

  /// Opens a session for `holder`; its id, for the cookie.
  func open(_ holder: Holder) -> String {
    let id = WebSecurity.randomSecret()
    let hashed = Self.hash(id)
    book.withLock { book in
      if book.order.count >= Self.limit {
        let oldest = book.order.removeFirst()
        book.holders[oldest] = nil
      }
      book.holders[hashed] = holder
      book.order.append(hashed)
    }
    return id
  }

  /// Who holds the session `id`, or nil when there is no such session (or it ended).
  func holder(_ id: String) -> Holder? {
    let hashed = Self.hash(id)
    return book.withLock { $0.holders[hashed] }
  }

  /// Ends the session `id`.
  func end(_ id: String) {
    let hashed = Self.hash(id)
    book.withLock { book in
      book.holders[hashed] = nil
      book.order.removeAll { $0 == hashed }
    }
  }

  private static func hash(_ id: String) -> String {
    ByteEncoding.hex(Digest.sha256(id.utf8))
  }
}
