import COpenSSL

/// Hashes, message authentication and random bytes from the system's libcrypto.
///
/// We never implement cryptography ourselves: every function here is a thin, checked call into
/// OpenSSL's EVP interface.
public enum Digest {
  /// The SHA-256 digest of `bytes` (32 bytes).
  public static func sha256<Bytes: Collection>(_ bytes: Bytes) -> [UInt8]
  where Bytes.Element == UInt8 {
    var hasher = SHA256Hasher()
    hasher.update(bytes)
    return hasher.finalize()
  }

  /// The MD5 digest of `bytes` (16 bytes). Only for interoperability (SUSI's account `uuid`).
  public static func md5<Bytes: Collection>(_ bytes: Bytes) -> [UInt8]
  where Bytes.Element == UInt8 {
    oneShot(EVP_md5(), Array(bytes))
  }

  /// HMAC-SHA256 of `message` under `key` (32 bytes).
  public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let ok = key.withUnsafeBufferPointer { k in
      message.withUnsafeBufferPointer { m in
        HMAC(
          EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, &out, &length)
      }
    }
    precondition(ok != nil, "libcrypto HMAC failed")
    return Array(out.prefix(Int(length)))
  }

  /// PBKDF2-HMAC-SHA256 (RFC 8018) of `password` under `salt`: `length` bytes after
  /// `iterations` rounds. Slow on purpose, so stolen password hashes are costly to guess.
  public static func pbkdf2SHA256(
    password: [UInt8], salt: [UInt8], iterations: Int, length: Int = 32
  ) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: length)
    let ok = password.withUnsafeBufferPointer { p in
      salt.withUnsafeBufferPointer { s in
        p.withMemoryRebound(to: CChar.self) { chars in
          PKCS5_PBKDF2_HMAC(
            chars.baseAddress, Int32(p.count), s.baseAddress, Int32(s.count),
            Int32(clamping: max(1, iterations)), EVP_sha256(), Int32(length), &out)
        }
      }
    }
    precondition(ok == 1, "libcrypto PKCS5_PBKDF2_HMAC failed")
    return out
  }

  /// `count` bytes from the operating system's cryptographically secure generator.
  public static func randomBytes(_ count: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
    precondition(ok == 1, "libcrypto RAND_bytes failed")
    return out
  }

  /// Compares two byte strings in time that depends only on their lengths.
  public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in 0..<a.count { difference |= a[i] ^ b[i] }
    return difference == 0
  }

  private static func oneShot(_ md: OpaquePointer?, _ bytes: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let ok = bytes.withUnsafeBufferPointer {
      EVP_Digest($0.baseAddress, $0.count, &out, &length, md, nil)
    }
    precondition(ok == 1, "libcrypto EVP_Digest failed")
    return Array(out.prefix(Int(length)))
  }
}

/// An incremental SHA-256, for hashing data that arrives in pieces (a state digest, a file).
public struct SHA256Hasher: ~Copyable {
  private let context: OpaquePointer

  public init() {
    guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
      fatalError("libcrypto could not start a SHA-256 digest")
    }
    self.context = context
  }

  deinit { EVP_MD_CTX_free(context) }

  /// Feeds more bytes into the digest.
  public mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
    let done = bytes.withContiguousStorageIfAvailable { buffer in
      EVP_DigestUpdate(context, buffer.baseAddress, buffer.count)
    }
    if done == nil {
      let copy = Array(bytes)
      copy.withUnsafeBufferPointer { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
    }
  }

  /// Ends the digest and returns its 32 bytes.
  public consuming func finalize() -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    EVP_DigestFinal_ex(context, &out, &length)
    return out
  }
}
