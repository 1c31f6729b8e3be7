import SusiCrypto

/// A subscriber's signing secret, written `whsec_` + base64 as Standard Webhooks does.
///
/// Its text never reaches the event log; it lives in the subscribers file (mode 0600).
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
  /// The raw key bytes (after the prefix and base64).
  public let bytes: [UInt8]

  /// The prefix that marks a secret's text.
  public static let prefix = "whsec_"
  /// How many key bytes a secret may have (Standard Webhooks: 24 to 64).
  public static let allowedLength = 24...64

  /// A secret of these key bytes; nil unless there are 24 to 64.
  public init?(bytes: [UInt8]) {
    guard Self.allowedLength.contains(bytes.count) else { return nil }
    self.bytes = bytes
  }

  /// Reads `whsec_<base64>` (the prefix may be left out); nil when it is not base64 of 24 to
  /// 64 bytes.
  public init?(_ text: String) {
    let encoded = text.hasPrefix(Self.prefix) ? String(text.dropFirst(Self.prefix.count)) : text
    guard let bytes = ByteEncoding.base64Decode(encoded) else { return nil }
    self.init(bytes: bytes)
  }

  /// A fresh random secret of 32 bytes.
  public static func generate() -> WebhookSecret {
    WebhookSecret(bytes: Digest.randomBytes(32))!
  }

  /// The secret as it is shown to the subscriber's owner: `whsec_<base64>`.
  public var text: String { Self.prefix + ByteEncoding.base64(bytes) }

  /// Never the secret itself.
  public var description: String { "whsec_[redacted]" }
}

/// Standard Webhooks signatures: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`.
public enum WebhookSignature {
  /// The `webhook-signature` value for one delivery attempt.
  public static func sign(id: String, timestamp: Int64, body: [UInt8], secret: WebhookSecret)
    -> String
  {
    "v1," + ByteEncoding.base64(mac(id: id, timestamp: timestamp, body: body, secret: secret))
  }

  /// Whether `header` (a space-separated list of `version,signature`) holds a valid `v1`
  /// signature of exactly these bytes. With `now`, the timestamp must also lie within
  /// `tolerance` seconds of it, which stops old deliveries from being replayed.
  public static func verify(
    id: String, timestamp: Int64, body: [UInt8], header: String, secret: WebhookSecret,
    now: Int64? = nil, tolerance: Int64 = 300
  ) -> Bool {
    if let now, abs(now - timestamp) > tolerance { return false }
    let expected = mac(id: id, timestamp: timestamp, body: body, secret: secret)
    var valid = false
    for entry in header.split(separator: " ") {
      let parts = entry.split(separator: ",", maxSplits: 1)
      guard parts.count == 2, parts[0] == "v1",
        let given = ByteEncoding.base64Decode(String(parts[1]))
      else {
        continue
      }
      if Digest.constantTimeEqual(given, expected) { valid = true }
    }
    return valid
  }

  /// Verifies a received request given its three header values as text.
  public static func verify(
    id: String, timestamp: String, body: [UInt8], header: String, secret: WebhookSecret,
    now: Int64? = nil, tolerance: Int64 = 300
  ) -> Bool {
    guard let seconds = Int64(timestamp) else { return false }
    return verify(
      id: id, timestamp: seconds, body: body, header: header, secret: secret, now: now,
      tolerance: tolerance)
  }

  private static func mac(id: String, timestamp: Int64, body: [UInt8], secret: WebhookSecret)
    -> [UInt8]
  {
    var content = Array(id.utf8)
    content.append(UInt8(ascii: "."))
    content.append(contentsOf: String(timestamp).utf8)
    content.append(UInt8(ascii: "."))
    content.append(contentsOf: body)
    return Digest.hmacSHA256(key: secret.bytes, message: content)
  }
}
