import Foundation
import SusiCrypto
import SusiJSON

/// A user account. The password exists only as a salted hash.
struct Account: Sendable, Equatable {
  enum Role: String, Sendable {
    case user
    case superadmin
  }

  var email: String
  var role: Role
  var salt: String
  var passwordHash: String
  var created: Date
  /// The user's settings, all values strings, in the order first set.
  var settings: JSONObject
  /// The user's devices by MAC address (`/aaa/addNewDevice.json`), each
  /// `{name, room, geolocation: {latitude, longitude}, deviceAddTime}`.
  var devices: JSONObject = [:]

  /// The account's `uuid`: the MD5 hex of the email, as on the real server.
  var uuid: String { ByteEncoding.hex(Digest.md5(Array(email.utf8))) }
}

/// Every account, keyed by lower-cased email.
struct AccountBook: Sendable {
  private(set) var accounts: [String: Account] = [:]

  func account(_ email: String) -> Account? { accounts[email.lowercased()] }

  var isEmpty: Bool { accounts.isEmpty }

  mutating func put(_ account: Account) { accounts[account.email.lowercased()] = account }

  mutating func remove(_ email: String) { accounts[email.lowercased()] = nil }

  /// Accounts sorted by email, for stable files.
  var sorted: [Account] { accounts.values.sorted { $0.email < $1.email } }
}

/// Access tokens, stored by their SHA-256 so the file never holds a usable token.
struct TokenBook: Sendable {
  struct Record: Sendable, Equatable {
    var email: String
    /// nil means the token never expires (`valid_seconds=-1`).
    var expires: Date?
  }

  private(set) var records: [String: Record] = [:]

  static func digest(_ token: String) -> String {
    ByteEncoding.hex(Digest.sha256(Array(token.utf8)))
  }

  /// The email a live token belongs to, or nil for unknown and expired tokens.
  func email(forToken token: String, now: Date) -> String? {
    guard let record = records[TokenBook.digest(token)] else { return nil }
    if let expires = record.expires, expires <= now { return nil }
    return record.email
  }

  mutating func add(token: String, record: Record) { records[TokenBook.digest(token)] = record }

  mutating func add(digest: String, record: Record) { records[digest] = record }

  /// Forgets expired tokens (called before saving, so the file does not grow forever).
  mutating func dropExpired(now: Date) {
    records = records.filter { $0.value.expires.map { $0 > now } ?? true }
  }

  /// Forgets one token (a logout); true when it was known.
  @discardableResult
  mutating func remove(token: String) -> Bool {
    records.removeValue(forKey: TokenBook.digest(token)) != nil
  }

  mutating func removeAll(for email: String) {
    records = records.filter { $0.value.email.lowercased() != email.lowercased() }
  }

  /// A new 30-character `[A-Za-z0-9]` token from libcrypto's generator.
  static func makeToken() -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    var token = ""
    while token.count < 30 {
      for byte in Digest.randomBytes(32) where byte < 248 && token.count < 30 {
        token.append(alphabet[Int(byte) % alphabet.count])
      }
    }
    return token
  }
}

/// Recent failed logins per client address and per account, for the "too many invalid login
/// attempts" lockout: more than `limit` failures within `window` on either key refuses every
/// login for that key, the right password included, until the oldest failure is `window` old.
/// Keying on the account too means rotating addresses gains a guesser nothing.
struct LoginFailures: Sendable {
  static let limit = 10
  static let window: TimeInterval = 60

  /// The keys one attempt counts against.
  struct Keys: Sendable {
    var address: String
    var account: String
  }

  private var failures: [String: [Date]] = [:]

  static func keys(address: String, account: String) -> Keys {
    Keys(address: "address " + address, account: "account " + account.lowercased())
  }

  /// Seconds until both keys may try again, or nil when neither is locked out.
  func lockout(_ keys: Keys, now: Date) -> Int? {
    let waits = [keys.address, keys.account].compactMap { lockout(key: $0, now: now) }
    return waits.max()
  }

  private func lockout(key: String, now: Date) -> Int? {
    let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < LoginFailures.window }
    guard recent.count > LoginFailures.limit, let oldest = recent.first else { return nil }
    return max(1, Int((LoginFailures.window - now.timeIntervalSince(oldest)).rounded(.up)))
  }

  /// Whether the address failed to log in within the window (the captcha trigger).
  func hasRecentFailures(_ keys: Keys, now: Date) -> Bool {
    (failures[keys.address] ?? []).contains { now.timeIntervalSince($0) < LoginFailures.window }
  }

  mutating func record(_ keys: Keys, now: Date) {
    record(key: keys.address, now: now)
    record(key: keys.account, now: now)
  }

  /// Takes back one failure recorded at `date` (an attempt that turned out right).
  mutating func forgive(_ keys: Keys, at date: Date) {
    for key in [keys.address, keys.account] {
      guard var list = failures[key], let index = list.lastIndex(of: date) else { continue }
      list.remove(at: index)
      failures[key] = list.isEmpty ? nil : list
    }
  }

  private mutating func record(key: String, now: Date) {
    var recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < LoginFailures.window }
    recent.append(now)
    // Only the count within the window matters; keep the list bounded.
    if recent.count > LoginFailures.limit + 1 {
      recent.removeFirst(recent.count - LoginFailures.limit - 1)
    }
    failures[key] = recent
    if failures.count > 10_000 {
      failures = failures.filter {
        !$0.value.isEmpty && now.timeIntervalSince($0.value.last ?? now) < LoginFailures.window
      }
    }
  }
}

extension LoginFailures {
  /// Signups for an address that is already taken, counted per caller like failed logins: a
  /// server without mail must say that an address is taken, so it answers that at most
  /// `limit` times a minute to one caller, which keeps anyone from listing the accounts.
  static func signupKey(_ caller: String) -> String { "signup " + caller }

  /// Seconds until `caller` may sign up again, or nil.
  func signupLockout(_ caller: String, now: Date) -> Int? {
    lockout(key: Self.signupKey(caller), now: now)
  }

  mutating func recordTakenSignup(_ caller: String, now: Date) {
    record(key: Self.signupKey(caller), now: now)
  }
}
