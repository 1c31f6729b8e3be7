import SusiCrypto

/// Salted, deliberately slow password hashes for stored accounts. Passwords are never written
/// anywhere; only the random salt and `pbkdf2-sha256:<iterations>:<hex>` are, so the cost can
/// be raised later and every stored hash still says how it was made.
///
/// Hashes from before this format (one `HMAC-SHA256(salt, password)`, bare hex) still verify,
/// and are replaced at the account's next successful login, as are hashes of another cost.
enum PasswordHasher {
  /// PBKDF2-HMAC-SHA256 rounds for new hashes: OWASP's 2023 recommendation.
  static let defaultIterations = 600_000

  /// What a stored hash says about a password.
  enum Verdict: Equatable {
    case wrong
    /// The password is right; `needsRehash` when the hash is of an older format or cost.
    case correct(needsRehash: Bool)
  }

  private static let scheme = "pbkdf2-sha256"

  /// A fresh random salt, hex-encoded.
  static func makeSalt() -> String { ByteEncoding.hex(Digest.randomBytes(16)) }

  /// `pbkdf2-sha256:<iterations>:<hex>` for `password` under `salt`.
  static func hash(_ password: String, salt: String, iterations: Int) -> String {
    "\(scheme):\(iterations):\(derive(password, salt: salt, iterations: iterations))"
  }

  /// The format before PBKDF2, kept to check (and then replace) hashes saved by older versions.
  static func legacyHash(_ password: String, salt: String) -> String {
    ByteEncoding.hex(Digest.hmacSHA256(key: Array(salt.utf8), message: Array(password.utf8)))
  }

  /// Checks `password` against a stored hash, compared in constant time; a hash this code
  /// cannot read never matches.
  static func verify(_ password: String, salt: String, stored: String, iterations: Int)
    -> Verdict
  {
    let parts = stored.split(separator: ":", omittingEmptySubsequences: false)
    let expected: String
    let computed: String
    let current: Bool
    if parts.count == 3, parts[0] == scheme, let rounds = Int(parts[1]), rounds > 0,
      rounds <= 100_000_000
    {
      expected = String(parts[2])
      computed = derive(password, salt: salt, iterations: rounds)
      current = rounds == iterations
    } else if parts.count == 1 {
      expected = stored
      computed = legacyHash(password, salt: salt)
      current = false
    } else {
      return .wrong
    }
    guard Digest.constantTimeEqual(Array(computed.utf8), Array(expected.utf8)) else {
      return .wrong
    }
    return .correct(needsRehash: !current)
  }

  private static func derive(_ password: String, salt: String, iterations: Int) -> String {
    ByteEncoding.hex(
      Digest.pbkdf2SHA256(
        password: Array(password.utf8), salt: Array(salt.utf8), iterations: iterations))
  }
}
