import SusiCrypto
import Testing

@Suite struct HMACTests {
  private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
  private func hmac(_ key: [UInt8], _ message: [UInt8]) -> String {
    ByteEncoding.hex(Digest.hmacSHA256(key: key, message: message))
  }

  @Test func rfc4231TestCase1() {
    #expect(
      hmac([UInt8](repeating: 0x0b, count: 20), bytes("Hi There"))
        == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
  }

  @Test func rfc4231TestCase2ShortKey() {
    #expect(
      hmac(bytes("Jefe"), bytes("what do ya want for nothing?"))
        == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
  }

  @Test func rfc4231TestCase3() {
    #expect(
      hmac([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50))
        == "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
  }

  @Test func rfc4231TestCase4() {
    #expect(
      hmac(Array(1...25), [UInt8](repeating: 0xcd, count: 50))
        == "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")
  }

  @Test func rfc4231TestCase5TruncatedTo128Bits() {
    let mac = Digest.hmacSHA256(
      key: [UInt8](repeating: 0x0c, count: 20), message: bytes("Test With Truncation"))
    #expect(ByteEncoding.hex(Array(mac.prefix(16))) == "a3b6167473100ee06e0c796c2955552b")
  }

  @Test func rfc4231TestCase6KeyLargerThanABlock() {
    #expect(
      hmac(
        [UInt8](repeating: 0xaa, count: 131),
        bytes("Test Using Larger Than Block-Size Key - Hash Key First"))
        == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
  }

  @Test func rfc4231TestCase7KeyAndDataLargerThanABlock() {
    let message =
      "This is a test using a larger than block-size key and a larger than block-size data. "
      + "The key needs to be hashed before being used by the HMAC algorithm."
    #expect(
      hmac([UInt8](repeating: 0xaa, count: 131), bytes(message))
        == "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
  }

  @Test func matchesGitHubsWebhookExample() {
    #expect(
      hmac(bytes("It's a Secret to Everybody"), bytes("Hello, World!"))
        == "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
  }

  @Test func matchesTheStandardWebhooksExample() throws {
    let secret = try #require(ByteEncoding.base64Decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
    let signed = bytes(#"msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}"#)
    #expect(
      ByteEncoding.base64(Digest.hmacSHA256(key: secret, message: signed))
        == "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
  }

  @Test func acceptsAnEmptyKeyAndMessage() {
    #expect(
      hmac([], []) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
  }

  @Test func differentKeysGiveDifferentMacs() {
    #expect(hmac(bytes("key1"), bytes("message")) != hmac(bytes("key2"), bytes("message")))
  }
}
