import Foundation
import SusiCrypto
import Synchronization

/// The browser sessions of one server, in memory only: each is a random id the page keeps in
/// its tab and sends in the `X-Susi-Session` header, bound to who signed in. A restart ends
/// them all.
///
/// Ids are kept by their SHA-256, so looking one up takes no time that depends on how much of
/// a guessed id is right. One holder (a serve key, or whoever opened `susi web`'s link) keeps
/// at most `perHolder` sessions: opening one more ends that holder's oldest, never another's.
final class WebSessions: Sendable {
  /// Who a session belongs to.
  enum Holder: Sendable, Equatable {
    /// Whoever opened the URL `susi web` printed.
    case local
    /// Whoever signed in with this `susi serve` key; it lasts while the key does.
    case key(String)
  }

  /// Sessions kept at most; when all are taken by others, a new one is refused.
  let limit: Int
  /// Sessions one holder keeps at most.
  let perHolder: Int

  init(limit: Int = 1000, perHolder: Int = 100) {
    self.limit = max(1, limit)
    self.perHolder = max(1, min(perHolder, limit))
  }

  private struct Book {
    var holders: [String: Holder] = [:]
    /// Hashed ids, oldest first.
    var order: [String] = []
  }

  private let book = Mutex(Book())

  /// Opens a session for `holder`; its id, or nil when every place is taken by other holders.
  func open(_ holder: Holder) -> String? {
    let id = WebSecurity.randomSecret()
    let hashed = Self.hash(id)
    return book.withLock { book -> String? in
      let own = book.order.filter { book.holders[$0] == holder }
      if own.count >= perHolder || (book.order.count >= limit && !own.isEmpty) {
        let oldest = own[0]
        book.holders[oldest] = nil
        book.order.removeAll { $0 == oldest }
      }
      guard book.order.count < limit else { return nil }
      book.holders[hashed] = holder
      book.order.append(hashed)
      return id
    }
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

/// The start links of one `susi web`: one token at a time, good for one sign-in and for
/// `lifetime` seconds. Making a new link ends the one before. Only the token's SHA-256 is kept.
public final class StartLinks: Sendable {
  /// Seconds a link stays good when nobody uses it.
  public let lifetime: Double
  private let now: @Sendable () -> Double
  private struct Current {
    var hashed: [UInt8]?
    var expires = 0.0
  }
  private let current = Mutex(Current())

  /// Links that last `lifetime` seconds (10 minutes) by the clock `now` (seconds).
  public init(
    lifetime: Double = 600,
    now: (@Sendable () -> Double)? = nil
  ) {
    self.lifetime = lifetime
    self.now = now ?? { Date().timeIntervalSince1970 }
  }

  /// A new token; the one before stops working.
  public func make() -> String {
    let token = WebSecurity.randomSecret()
    let hashed = Digest.sha256(token.utf8)
    let expires = now() + lifetime
    current.withLock { $0 = Current(hashed: hashed, expires: expires) }
    return token
  }

  /// Whether `presented` is the current token and still good; a match uses it up.
  func redeem(_ presented: String) -> Bool {
    let hashed = Digest.sha256(presented.utf8)
    let time = now()
    return current.withLock { current in
      guard let real = current.hashed, Digest.constantTimeEqual(hashed, real),
        time < current.expires
      else { return false }
      current.hashed = nil
      return true
    }
  }
}
