import SusiCrypto

/// Salted password hashes for stored accounts. Passwords are never written anywhere; only
/// `HMAC-SHA256(salt, password)` and the random salt are.
enum PasswordHasher {
  /// A fresh random salt, hex-encoded.
  static func makeSalt() -> String { ByteEncoding.hex(Digest.randomBytes(16)) }

  /// The hex hash of `password` under `salt`.
  static func hash(_ password: String, salt: String) -> String {
    ByteEncoding.hex(Digest.hmacSHA256(key: Array(salt.utf8), message: Array(password.utf8)))
  }

  /// Whether `password` hashes to `expected` under `salt`, compared in constant time.
  static func verify(_ password: String, salt: String, expected: String) -> Bool {
    Digest.constantTimeEqual(Array(hash(password, salt: salt).utf8), Array(expected.utf8))
  }
}
