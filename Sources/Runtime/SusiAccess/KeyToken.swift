import SusiCore
import SusiCrypto

/// The secret a caller presents: `susi_<16 hex digits of the key id>_<43 characters>`.
///
/// The id part lets us find the stored hash without a search, and lets a person tell keys
/// apart; the rest is 32 random bytes, base64url without padding. Only the SHA-256 of the whole
/// token is stored.
public struct KeyToken: Sendable, Equatable, CustomStringConvertible {
  /// The key id, `key_` and 16 hex digits.
  public let keyID: String
  /// The full token text. Show it once, to the person who asked for it.
  public let text: String

  /// A fresh key: a random id and a random secret.
  public static func generate() -> KeyToken {
    let id = "key_" + ByteEncoding.hex(Digest.randomBytes(8))
    let secret = ByteEncoding.base64URL(Digest.randomBytes(32))
    return KeyToken(keyID: id, text: "susi_\(id.dropFirst(4))_\(secret)")
  }

  /// Reads a presented token; nil when it does not have the shape of one.
  public init?(_ text: String) {
    var text = text
    guard let id = text.withUTF8(Self.keyID(of:)) else { return nil }
    self.keyID = id
    self.text = text
  }

  /// The key id of a presented token's bytes, or nil when they do not have the shape of one:
  /// "susi_" + 16 lowercase hex digits + "_" + 43 characters. Reads the bytes in place.
  static func keyID(of bytes: UnsafeBufferPointer<UInt8>) -> String? {
    guard bytes.count == 65, bytes[21] == UInt8(ascii: "_"),
      bytes[0..<5].elementsEqual("susi_".utf8)
    else { return nil }
    // Written into the string's own storage: one allocation, where joining two strings
    // takes two (this runs for every request that sends a key).
    let prefix: StaticString = "key_"
    let id = String(unsafeUninitializedCapacity: 20) { text in
      _ = text.initialize(
        fromContentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: 4))
      _ = UnsafeMutableBufferPointer(rebasing: text[4...]).initialize(
        fromContentsOf: UnsafeBufferPointer(rebasing: bytes[5..<21]))
      return 20
    }
    return AccessControl.isKeyID(id) ? id : nil
  }

  private init(keyID: String, text: String) {
    self.keyID = keyID
    self.text = text
  }

  /// The SHA-256 of the token's text: what the keys file stores.
  public var hash: [UInt8] { Digest.sha256(text.utf8) }

  /// Never the secret itself.
  public var description: String { "susi_\(keyID.dropFirst(4))_[redacted]" }
}
