import SusiDelivery
import Testing

/// Standard Webhooks signing: the spec's published example, and what must not verify.
@Suite struct WebhookSignatureTests {
  static let secret = WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")!
  static let id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
  static let timestamp: Int64 = 1_614_265_330
  static let body = Array(#"{"test": 2432232314}"#.utf8)
  static let expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

  @Test func signsTheSpecExample() {
    #expect(
      WebhookSignature.sign(
        id: Self.id, timestamp: Self.timestamp, body: Self.body, secret: Self.secret)
        == Self.expected)
  }

  @Test func specExampleVerifies() {
    #expect(
      WebhookSignature.verify(
        id: Self.id, timestamp: Self.timestamp, body: Self.body, header: Self.expected,
        secret: Self.secret))
  }

  @Test func oneChangedByteOfBodyIdOrTimestampFails() {
    for i in Self.body.indices {
      var body = Self.body
      body[i] ^= 0x01
      #expect(
        !WebhookSignature.verify(
          id: Self.id, timestamp: Self.timestamp, body: body, header: Self.expected,
          secret: Self.secret))
    }
    var idBytes = Array(Self.id.utf8)
    for i in idBytes.indices {
      let saved = idBytes[i]
      idBytes[i] ^= 0x01
      let id = String(decoding: idBytes, as: UTF8.self)
      #expect(
        !WebhookSignature.verify(
          id: id, timestamp: Self.timestamp, body: Self.body, header: Self.expected,
          secret: Self.secret))
      idBytes[i] = saved
    }
    for timestamp in [Self.timestamp + 1, Self.timestamp - 1, Self.timestamp + 10] {
      #expect(
        !WebhookSignature.verify(
          id: Self.id, timestamp: timestamp, body: Self.body, header: Self.expected,
          secret: Self.secret))
    }
    #expect(
      !WebhookSignature.verify(
        id: Self.id, timestamp: "1614265331", body: Self.body, header: Self.expected,
        secret: Self.secret))
  }

  @Test func anyValidSignatureInTheListVerifies() {
    let header = "v1,bm90IGEgc2lnbmF0dXJl v1a,abc \(Self.expected)"
    #expect(
      WebhookSignature.verify(
        id: Self.id, timestamp: Self.timestamp, body: Self.body, header: header, secret: Self.secret
      ))
    #expect(
      !WebhookSignature.verify(
        id: Self.id, timestamp: Self.timestamp, body: Self.body, header: "v2,abc",
        secret: Self.secret))
    #expect(
      !WebhookSignature.verify(
        id: Self.id, timestamp: Self.timestamp, body: Self.body, header: "", secret: Self.secret))
  }

  @Test func staleTimestampFailsWhenATimeIsGiven() {
    #expect(
      WebhookSignature.verify(
        id: Self.id, timestamp: Self.timestamp, body: Self.body, header: Self.expected,
        secret: Self.secret,
        now: Self.timestamp + 300))
    #expect(
      !WebhookSignature.verify(
        id: Self.id, timestamp: Self.timestamp, body: Self.body, header: Self.expected,
        secret: Self.secret,
        now: Self.timestamp + 301))
  }

  @Test func secretsReadWithOrWithoutPrefixAndRefuseBadOnes() {
    #expect(WebhookSecret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") == Self.secret)
    #expect(WebhookSecret("whsec_not base64!") == nil)
    #expect(WebhookSecret("whsec_c2hvcnQ=") == nil)
    let generated = WebhookSecret.generate()
    #expect(generated.bytes.count == 32)
    #expect(WebhookSecret(generated.text) == generated)
    #expect(!"\(generated)".contains(generated.text))
  }
}
